package theta

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// longBytes is a long as the Java library's update(long) hashes it, and as
// Iceberg's single-value serialization writes a long.
func longBytes(i int64) []byte { return binary.LittleEndian.AppendUint64(nil, uint64(i)) }

// TestSerializesAsJava feeds the stream the Java library's test files were
// made from and compares the bytes: exact (n 0, 1, 10, 1000) and
// estimating after several rebuilds (n 100000), which only matches when
// the table grows and rebuilds where the library's does.
func TestSerializesAsJava(t *testing.T) {
	for _, n := range []int64{0, 1, 10, 1000, 100000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join("testdata", fmt.Sprintf("theta_n%d_java.sk", n)))
			if err != nil {
				t.Fatal(err)
			}
			s, err := New(DefaultLgK)
			if err != nil {
				t.Fatal(err)
			}
			for i := range n {
				s.Update(longBytes(i))
			}
			got, err := s.Compact().MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("n=%d: %d bytes differ from the Java library's %d (first 24: %x vs %x)", n, len(got), len(want), head(got), head(want))
			}
		})
	}
}

func head(b []byte) []byte { return b[:min(len(b), 24)] }

// TestReadsJavaSketches parses the library's files and checks what they
// say: the count, and an estimate within 3 standard errors (1/sqrt(k)).
func TestReadsJavaSketches(t *testing.T) {
	for _, n := range []int64{0, 1, 10, 1000, 100000} {
		b, err := os.ReadFile(filepath.Join("testdata", fmt.Sprintf("theta_n%d_java.sk", n)))
		if err != nil {
			t.Fatal(err)
		}
		c, err := Parse(b, DefaultSeed)
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		if c.Empty != (n == 0) {
			t.Errorf("n=%d: empty %v", n, c.Empty)
		}
		est := c.Estimate()
		if n <= 4096 && est != float64(n) {
			t.Errorf("n=%d: exact estimate %v", n, est)
		}
		if rel := math.Abs(est-float64(n)) / math.Max(1, float64(n)); rel > 3/math.Sqrt(4096) {
			t.Errorf("n=%d: estimate %v is %.2f%% off", n, est, 100*rel)
		}
		again, err := c.MarshalBinary()
		if err != nil || !bytes.Equal(again, b) {
			t.Errorf("n=%d: parsed sketch serializes differently (%v)", n, err)
		}
	}
}

// TestEstimateAccuracy counts distinct strings with repeats against the
// exact count: lgK 12's relative standard error is about 1.6%, so 5% is
// three of them.
func TestEstimateAccuracy(t *testing.T) {
	for _, n := range []int{100, 5000, 100000, 1000000} {
		s, err := New(DefaultLgK)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 2 * n {
			s.Update([]byte(fmt.Sprintf("value-%d", i%n)))
		}
		est := s.Estimate()
		if rel := math.Abs(est-float64(n)) / float64(n); rel > 0.05 {
			t.Errorf("%d distinct: estimate %.0f is %.2f%% off", n, est, 100*rel)
		}
		if n <= 4096 && est != float64(n) {
			t.Errorf("%d distinct: exact mode estimated %v", n, est)
		}
	}
}

func TestSeedHashIsTheLibrarys(t *testing.T) {
	if got := SeedHash(DefaultSeed); got != 0x93cc {
		t.Fatalf("seed hash of 9001 is %#x, the library's is 0x93cc", got)
	}
}

func TestEmptyValuesAreNotCounted(t *testing.T) {
	s, err := New(DefaultLgK)
	if err != nil {
		t.Fatal(err)
	}
	s.Update(nil)
	s.Update([]byte{})
	if c := s.Compact(); !c.Empty || c.Estimate() != 0 {
		t.Fatalf("empty values made the sketch %+v", c)
	}
}

func TestParseRefusesOtherFormats(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "theta_n10_java.sk"))
	if err != nil {
		t.Fatal(err)
	}
	for name, mut := range map[string]func([]byte){
		"serial version 4": func(b []byte) { b[1] = 4 },
		"other seed":       func(b []byte) { b[6] ^= 1 },
		"truncated":        nil,
	} {
		c := bytes.Clone(b)
		if mut != nil {
			mut(c)
		} else {
			c = c[:len(c)-3]
		}
		if _, err := Parse(c, DefaultSeed); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
}
