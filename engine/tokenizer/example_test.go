package tokenizer_test

import (
	"fmt"
	"log"
	"os"

	"nexttoken/engine/tokenizer"
)

// tok512 returns the tokenizer of llama2.c's 512-token vocabulary.
func tok512() tokenizer.Tokenizer {
	data, err := os.ReadFile("../../web/models/tok512.bin")
	if err != nil {
		log.Fatal(err)
	}
	v, err := tokenizer.Read(data)
	if err != nil {
		log.Fatal(err)
	}
	tok, err := tokenizer.New(v)
	if err != nil {
		log.Fatal(err)
	}
	return tok
}

func Example() {
	tok := tok512()
	ids, err := tok.Encode("Once upon a time")
	if err != nil {
		log.Fatal(err)
	}
	for _, id := range ids {
		fmt.Printf("%3d %q\n", id, tok.Token(id))
	}
	fmt.Printf("%q\n", tok.Decode(ids))
	// Output:
	//   1 "\n<s>\n"
	// 403 " Once"
	// 407 " upon"
	// 261 " a"
	// 378 " time"
	// "Once upon a time"
}

// A model emits one token at a time; Piece gives the text each adds. The
// emoji has no piece of its own, so it comes as four byte pieces, each
// adding one byte of its UTF-8 encoding.
func ExampleBPE_Piece() {
	tok := tok512()
	ids, _ := tok.Encode("Hi 🙂")
	prev := -1
	for _, id := range ids {
		fmt.Printf("%-9q adds %q\n", tok.Token(id), tok.Piece(prev, id))
		prev = id
	}
	// Output:
	// "\n<s>\n" adds ""
	// " H"      adds "H"
	// "i"       adds "i"
	// " "       adds " "
	// "<0xF0>"  adds "\xf0"
	// "<0x9F>"  adds "\x9f"
	// "<0x99>"  adds "\x99"
	// "<0x82>"  adds "\x82"
}

func ExampleWords() {
	v := tokenizer.WordVocab([]string{"The", "cat", "sat", "on", "the", "mat"})
	tok, err := tokenizer.NewWords(v)
	if err != nil {
		log.Fatal(err)
	}
	ids, _ := tok.Encode("The cat sat on the mat")
	fmt.Println(ids, tok.BOS())
	fmt.Printf("%q\n", tok.Decode(ids[:2]))
	_, err = tok.Encode("The dog")
	fmt.Println(err)
	// Output:
	// [0 1 2 3 4 5] -1
	// "The cat"
	// tokenizer: unknown word "dog": the vocabulary is The, cat, sat, on, the, mat
}

// A tokenizer.bin is max_token_length, then each piece's score, length and
// bytes, all little-endian.
func ExampleVocab_MarshalBinary() {
	v := &tokenizer.Vocab{MaxTokenLength: 2, Pieces: []string{"a", "hi"}, Scores: []float32{0, -1}}
	data, err := v.MarshalBinary()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("% x\n", data)
	// Output:
	// 02 00 00 00 00 00 00 00 01 00 00 00 61 00 00 80 bf 02 00 00 00 68 69
}
