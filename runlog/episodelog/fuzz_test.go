package episodelog

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzScanDecode: any file scans without panicking; every line Scan gives
// starts at its offset, and ReadAt at that offset decodes as Decode does.
func FuzzScanDecode(f *testing.F) {
	f.Add([]byte(`{"phase":"train","step":1,"task_id":"a","messages":[{"role":"user","content":"hi"}],"samples":[{"ids":[1,2],"text":["a","b"],"mask":"01","prompt_len":1}]}` + "\n"))
	f.Add([]byte("\n\n{\"phase\":\"validation\"}\n{\"pha"))
	f.Add([]byte(`{"phase":""}` + "\n" + `[1,2]` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bytes.NewReader(data)
		end, _, err := Scan(bytes.NewReader(data), func(off int64, line []byte) error {
			if !bytes.HasPrefix(data[off:], line) || (off > 0 && data[off-1] != '\n') {
				t.Fatalf("offset %d does not start line %q", off, line)
			}
			want, werr := Decode(line)
			got, gerr := ReadAt(r, off)
			if (werr == nil) != (gerr == nil) || (werr == nil && got.Step != want.Step) {
				t.Fatalf("ReadAt(%d) = %v, %v; Decode = %v, %v", off, got.Step, gerr, want.Step, werr)
			}
			if werr != nil && !errors.Is(werr, ErrLine) {
				t.Fatalf("Decode error %v does not wrap ErrLine", werr)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if end > int64(len(data)) || (end > 0 && data[end-1] != '\n') || bytes.IndexByte(data[end:], '\n') >= 0 {
			t.Fatalf("end %d is not just past the last newline of %q", end, data)
		}
	})
}
