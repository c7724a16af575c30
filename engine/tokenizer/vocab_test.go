package tokenizer

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"strings"
	"testing"
)

// tok512File returns the bytes of llama2.c's 512-token tokenizer.bin.
func tok512File(tb testing.TB) []byte {
	tb.Helper()
	data, err := os.ReadFile("../../web/models/tok512.bin")
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// entry is one token of a hand-made tokenizer.bin.
type entry struct {
	score float32
	size  int32 // the stored length, which may lie
	piece string
}

// file returns a tokenizer.bin with the given header and entries.
func file(maxLen int32, entries ...entry) []byte {
	le := binary.LittleEndian
	data := le.AppendUint32(nil, uint32(maxLen))
	for _, e := range entries {
		data = le.AppendUint32(data, math.Float32bits(e.score))
		data = le.AppendUint32(data, uint32(e.size))
		data = append(data, e.piece...)
	}
	return data
}

func TestReadTok512(t *testing.T) {
	data := tok512File(t)
	v, err := Read(data)
	if err != nil {
		t.Fatal(err)
	}
	if v.MaxTokenLength != 7 || len(v.Pieces) != 512 {
		t.Errorf("max_token_length %d, %d pieces; want 7, 512", v.MaxTokenLength, len(v.Pieces))
	}
	for id, want := range map[int]string{0: "<unk>", 1: "\n<s>\n", 2: "\n</s>\n", 3: "<0x00>", 258: "<0xFF>", 259: " t", 410: " ", 511: "\u200a"} {
		if v.Pieces[id] != want {
			t.Errorf("piece %d is %q, want %q", id, v.Pieces[id], want)
		}
	}
	got, err := v.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, data) {
		t.Error("MarshalBinary differs from the file read")
	}
}

func TestReadErrors(t *testing.T) {
	ok := entry{0, 1, "a"}
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "too short"},
		{"short header", []byte{7, 0, 0}, "too short"},
		{"no pieces", file(7), "no pieces"},
		{"zero max_token_length", file(0, ok), "max_token_length 0 is not in"},
		{"negative max_token_length", file(-1, ok), "max_token_length -1 is not in"},
		{"absurd max_token_length", file(1<<16+1, ok), "max_token_length 65537 is not in"},
		{"truncated score", append(file(7, ok), 0, 0), "piece 1 at offset 13: file ends inside"},
		{"truncated length", append(file(7, ok), 0, 0, 0, 0, 1), "piece 1 at offset 13: file ends inside"},
		{"negative length", file(7, ok, entry{0, -1, ""}), "piece 1 at offset 17: negative length -1"},
		{"length past the end", file(7, entry{0, 3, "ab"}), "piece 0 at offset 8: length 3 runs past"},
		{"huge length", file(7, entry{0, math.MaxInt32, "ab"}), "runs past"},
		{"too long", file(2, entry{0, 3, "abc"}), `piece 0 "abc" is 3 bytes, longer than max_token_length 2`},
		{"NaN score", file(7, ok, entry{float32(math.NaN()), 1, "b"}), `piece 1 "b" has score NaN`},
		{"infinite score", file(7, entry{float32(math.Inf(-1)), 1, "b"}), `piece 0 "b" has score -Inf`},
		{"duplicate", file(7, ok, entry{0, 1, "b"}, ok), `pieces 0 and 2 are both "a"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := Read(tc.data)
			if err == nil {
				t.Fatalf("Read = %+v, want an error", v)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not contain %q", err, tc.want)
			}
		})
	}
}

// TestReadTruncated cuts a file at every offset: the result is the pieces
// before the cut if it falls between pieces, and an error otherwise.
func TestReadTruncated(t *testing.T) {
	pieces := []string{"<unk>", "", "ab", " the"}
	var entries []entry
	ends := map[int]int{} // offset of the end of each piece → pieces so far
	end := 4
	for i, p := range pieces {
		entries = append(entries, entry{float32(-i), int32(len(p)), p})
		end += 8 + len(p)
		ends[end] = i + 1
	}
	data := file(5, entries...)
	for cut := range len(data) + 1 {
		v, err := Read(data[:cut])
		n, between := ends[cut]
		switch {
		case between && err != nil:
			t.Errorf("cut at %d: %v", cut, err)
		case between && strings.Join(v.Pieces, "|") != strings.Join(pieces[:n], "|"):
			t.Errorf("cut at %d: pieces %q, want %q", cut, v.Pieces, pieces[:n])
		case !between && err == nil:
			t.Errorf("cut at %d: no error", cut)
		}
	}
}

func TestMarshalBinaryErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    Vocab
		want string
	}{
		{"zero value", Vocab{}, "max_token_length 0"},
		{"no pieces", Vocab{MaxTokenLength: 1}, "no pieces"},
		{"scores missing", Vocab{MaxTokenLength: 1, Pieces: []string{"a"}}, "1 pieces but 0 scores"},
		{"too long", Vocab{MaxTokenLength: 1, Pieces: []string{"ab"}, Scores: []float32{0}}, "longer than max_token_length"},
		{"duplicate", *WordVocab([]string{"a", "a"}), "both"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := tc.v.MarshalBinary(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestMarshalBinaryRoundTrip(t *testing.T) {
	for _, v := range []*Vocab{
		WordVocab([]string{"The", "cat", "sat", "on", "the", "mat"}),
		{MaxTokenLength: 9, Pieces: []string{"", "\x00\xff", "日本"}, Scores: []float32{float32(math.Copysign(0, -1)), -1e30, math.MaxFloat32}},
	} {
		data, err := v.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		got, err := Read(data)
		if err != nil {
			t.Fatal(err)
		}
		if again, _ := got.MarshalBinary(); !bytes.Equal(again, data) || got.MaxTokenLength != v.MaxTokenLength ||
			strings.Join(got.Pieces, "|") != strings.Join(v.Pieces, "|") {
			t.Errorf("Read(MarshalBinary(%+v)) = %+v", v, got)
		}
	}
}

func FuzzRead(f *testing.F) {
	tok512 := tok512File(f)
	for _, cut := range []int{0, 3, 4, 11, 12, 13, 17, 100, len(tok512) - 1, len(tok512)} {
		f.Add(tok512[:cut])
	}
	f.Add(file(5, entry{0, 5, "<unk>"}, entry{-1, 0, ""}, entry{-2, 2, "ab"}))
	f.Add(file(7, entry{float32(math.NaN()), 1, "a"}))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Read(data)
		if err != nil {
			return
		}
		got, err := v.MarshalBinary()
		if err != nil {
			t.Fatalf("MarshalBinary of what Read accepted: %v", err)
		}
		if !bytes.Equal(got, data) {
			t.Fatalf("MarshalBinary(Read(%q)) = %q", data, got)
		}
	})
}
