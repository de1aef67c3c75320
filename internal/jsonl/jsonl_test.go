package jsonl

import (
	"bufio"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/iotest"
)

func TestLines(t *testing.T) {
	in := "{\"a\":1}\n\n  \t\n  {\"b\":2}  \r\n{\"c\":3}"
	var got []string
	err := Lines(strings.NewReader(in), 64, func(n int, line []byte) error {
		got = append(got, fmt.Sprintf("%d:%s", n, line))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := `[1:{"a":1} 4:{"b":2} 5:{"c":3}]`; fmt.Sprint(got) != want {
		t.Errorf("lines = %v, want %v", got, want)
	}

	if err := Lines(strings.NewReader(""), 64, func(int, []byte) error { t.Error("called"); return nil }); err != nil {
		t.Errorf("empty input: %v", err)
	}
}

func TestLinesStops(t *testing.T) {
	stop := errors.New("stop")
	calls := 0
	err := Lines(strings.NewReader("1\n2\n3\n"), 64, func(n int, _ []byte) error {
		calls++
		if n == 2 {
			return stop
		}
		return nil
	})
	if err != stop || calls != 2 {
		t.Errorf("err = %v after %d calls, want fn's own error after 2", err, calls)
	}

	calls = 0
	long := "1\n" + strings.Repeat("x", 100) + "\n3\n"
	err = Lines(strings.NewReader(long), 64, func(int, []byte) error { calls++; return nil })
	if !errors.Is(err, bufio.ErrTooLong) || calls != 1 {
		t.Errorf("err = %v after %d calls, want bufio.ErrTooLong after 1", err, calls)
	}

	broken := errors.New("disk")
	err = Lines(iotest.TimeoutReader(strings.NewReader("1\n")), 64, func(int, []byte) error { return nil })
	if err == nil {
		t.Error("a failing reader gave no error")
	}
	err = Lines(iotest.ErrReader(broken), 64, func(int, []byte) error { return nil })
	if err != broken {
		t.Errorf("err = %v, want the reader's", err)
	}
}
