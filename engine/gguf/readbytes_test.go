package gguf

import (
	"bytes"
	"reflect"
	"testing"
	"unsafe"

	"nexttoken/engine/quant"
	"nexttoken/engine/randmodel"
)

// TestReadBytes reads files held in memory with ReadBytes, and with Held
// from a header Read read from their first bytes, and from a reader with
// Read: the models are the same, and ReadBytes's and Held's quantized
// matrices are the file's own bytes, not a copy (each slice inside the
// file's memory, with no room to grow into the next tensor), while their
// float32 ones are decoded as Read's are. Held refuses bytes of another
// size than the header's file.
func TestReadBytes(t *testing.T) {
	for _, format := range []string{"F32", "Q8_0", "Q4_K_M"} {
		t.Run(format, func(t *testing.T) {
			m, v, err := randmodel.BuildNamed(refConfig, 7, format)
			if err != nil {
				t.Fatal(err)
			}
			var file bytes.Buffer
			if err := WriteLlama2c(&file, m, v, Llama2cOptions{TiedOutput: true}); err != nil {
				t.Fatal(err)
			}
			data := file.Bytes()
			fromReader, err := Read(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				t.Fatal(err)
			}
			quant.UseSIMD(false) // Read's model in the row layout, as ReadBytes keeps it
			want, err := fromReader.Model()
			quant.UseSIMD(true)
			if err != nil {
				t.Fatal(err)
			}
			// Held is the header read from the file's first bytes alone,
			// given the whole file after.
			head, err := Read(bytes.NewReader(data[:fromReader.DataOffset]), int64(len(data)))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := head.Held(data[:len(data)-1]); err == nil {
				t.Errorf("Held took a byte fewer than the file the header was read from")
			}
			for _, read := range []struct {
				name string
				read func() (*File, error)
			}{
				{"ReadBytes", func() (*File, error) { return ReadBytes(data) }},
				{"Held", func() (*File, error) { return head.Held(data) }},
			} {
				inMemory, err := read.read()
				if err != nil {
					t.Fatal(err)
				}
				got, err := inMemory.Model()
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("the model read with %s differs from Read's", read.name)
				}
				start := uintptr(unsafe.Pointer(unsafe.SliceData(data)))
				quantized := 0
				ms := got.Matrices()
				for _, w := range []*quant.Matrix{&ms.Classifier, &ms.Layers[0].WQ, &ms.Layers[1].W2} {
					if w.Type == quant.F32 {
						continue
					}
					quantized++
					at := uintptr(unsafe.Pointer(unsafe.SliceData(w.Q)))
					if at < start || at+uintptr(len(w.Q)) > start+uintptr(len(data)) {
						t.Errorf("%s: a %s matrix's bytes are a copy, not the file's", read.name, w.Type)
					}
					if cap(w.Q) != len(w.Q) {
						t.Errorf("%s: a %s matrix's bytes have room for %d more: appending would write over the file", read.name, w.Type, cap(w.Q)-len(w.Q))
					}
				}
				if wantQuantized := format != "F32"; (quantized > 0) != wantQuantized {
					t.Errorf("%s: %d of the matrices checked are quantized", read.name, quantized)
				}
			}
		})
	}
}
