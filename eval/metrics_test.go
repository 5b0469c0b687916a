package eval

import (
	"math"
	"testing"

	. "github.com/sqlrl/sqlrl/sqlexec"
)

type rows = [][]Value

// Variables, not constants: Go folds constant 0.1+0.2 exactly to 0.3.
var point1, point2 = 0.1, 0.2

func TestBirdEX(t *testing.T) {
	tests := []struct {
		name       string
		pred, gold rows
		want       bool
	}{
		{"equal", rows{{Int(1), Text("a")}}, rows{{Int(1), Text("a")}}, true},
		{"order ignored", rows{{Int(1)}, {Int(2)}}, rows{{Int(2)}, {Int(1)}}, true},
		{"duplicates ignored", rows{{Int(1)}, {Int(1)}}, rows{{Int(1)}}, true},
		{"int equals real", rows{{Int(1)}}, rows{{Float(1.0)}}, true},
		{"text is not int", rows{{Text("1")}}, rows{{Int(1)}}, false},
		{"column order matters", rows{{Int(1), Int(2)}}, rows{{Int(2), Int(1)}}, false},
		{"extra column", rows{{Int(1), Int(2)}}, rows{{Int(1)}}, false},
		{"both empty", rows{}, rows{}, true},
		{"empty vs null row", rows{}, rows{{Null()}}, false},
		{"null equals null", rows{{Null()}}, rows{{Null()}}, true},
		{"subset", rows{{Int(1)}}, rows{{Int(1)}, {Int(2)}}, false},
		{"blob vs text", rows{{Blob([]byte("a"))}}, rows{{Text("a")}}, false},
		{"float precision", rows{{Float(point1 + point2)}}, rows{{Float(0.3)}}, false},
	}
	for _, tt := range tests {
		if got := BirdEX(tt.pred, tt.gold); got != tt.want {
			t.Errorf("%s: BirdEX = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestSpiderMatch(t *testing.T) {
	tests := []struct {
		name         string
		gold, pred   rows
		orderMatters bool
		want         bool
	}{
		{"bag equal", rows{{Int(1)}, {Int(2)}}, rows{{Int(2)}, {Int(1)}}, false, true},
		{"bag counts", rows{{Int(1)}, {Int(1)}}, rows{{Int(1)}, {Int(2)}}, false, false},
		{"duplicates matter", rows{{Int(1)}, {Int(1)}}, rows{{Int(1)}}, false, false},
		{"order matters", rows{{Int(1)}, {Int(2)}}, rows{{Int(2)}, {Int(1)}}, true, false},
		{"order kept", rows{{Int(1)}, {Int(2)}}, rows{{Int(1)}, {Int(2)}}, true, true},
		{"column permutation", rows{{Int(1), Text("a")}, {Int(2), Text("b")}}, rows{{Text("a"), Int(1)}, {Text("b"), Int(2)}}, false, true},
		{"permutation must be consistent", rows{{Int(1), Int(2)}, {Int(3), Int(4)}}, rows{{Int(2), Int(1)}, {Int(3), Int(4)}}, false, false},
		{"both empty", rows{}, rows{}, false, true},
		{"column count", rows{{Int(1)}}, rows{{Int(1), Int(1)}}, false, false},
		{"int equals real", rows{{Int(3)}}, rows{{Float(3)}}, false, true},
		// The official quick_rej sorts each row by str(x)+str(type(x)):
		// 1 sorts after '1.5' but 1.0 sorts before it, so the rows are
		// rejected although they are equal under ==.
		{"quick_rej quirk", rows{{Int(1), Text("1.5")}}, rows{{Float(1), Text("1.5")}}, false, false},
		{"wide permutation", rows{{Int(1), Int(2), Int(3), Int(4), Int(5)}}, rows{{Int(5), Int(4), Int(3), Int(2), Int(1)}}, false, true},
	}
	for _, tt := range tests {
		if got := SpiderMatch(tt.gold, tt.pred, tt.orderMatters); got != tt.want {
			t.Errorf("%s: SpiderMatch = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestPyFloatRepr(t *testing.T) {
	// Expected strings printed by CPython 3.11's repr().
	tests := map[float64]string{
		1.0: "1.0", 1e16: "1e+16", 1e15: "1000000000000000.0", 0.1: "0.1", math.Copysign(0, -1): "-0.0",
		1e-5: "1e-05", 0.0001: "0.0001", 123456789012345678.0: "1.2345678901234568e+17", 1.5e300: "1.5e+300",
		2.5: "2.5", 100.0: "100.0", 1234.5678: "1234.5678", 5e-324: "5e-324",
		1.7976931348623157e308: "1.7976931348623157e+308", point1 + point2: "0.30000000000000004",
		123456789.123: "123456789.123", 1e22: "1e+22", 9999999999999998.0: "9999999999999998.0",
	}
	for f, want := range tests {
		if got := PyFloatRepr(f); got != want {
			t.Errorf("PyFloatRepr(%v) = %q, want %q", f, got, want)
		}
	}
	for s, want := range map[string]string{"a'b": `b"a'b"`, "\x00\xff\n\\": `b'\x00\xff\n\\'`, `a"b'`: `b'a"b\''`} {
		if got := pyBytesRepr(s); got != want {
			t.Errorf("pyBytesRepr(%q) = %s, want %s", s, got, want)
		}
	}
}

func TestSoftF1(t *testing.T) {
	tests := []struct {
		name       string
		pred, gold rows
		want       float64
	}{
		{"both empty", rows{}, rows{}, 1},
		{"exact", rows{{Int(1), Int(2)}}, rows{{Int(1), Int(2)}}, 1},
		{"half a row", rows{{Int(1), Int(9)}}, rows{{Int(1), Int(2)}}, 0.5},
		// tp = 1, fp = 0, fn = 1 (missing gold row): P = 1, R = 0.5.
		{"missing row", rows{{Int(1)}}, rows{{Int(1)}, {Int(2)}}, 2 * 0.5 / 1.5},
		// tp = 1, fp = 1 (extra row), fn = 0.
		{"extra row", rows{{Int(1)}, {Int(2)}}, rows{{Int(1)}}, 2 * 0.5 / 1.5},
		{"duplicates dropped", rows{{Int(1)}, {Int(1)}}, rows{{Int(1)}}, 1},
		{"nothing", rows{{Int(3)}}, rows{{Int(1)}}, 0},
		{"pred empty", rows{}, rows{{Int(1)}}, 0},
	}
	for _, tt := range tests {
		if got := SoftF1(tt.pred, tt.gold); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s: SoftF1 = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestPassAtK(t *testing.T) {
	tests := []struct {
		n, c, k int
		want    float64
	}{
		{8, 0, 1, 0}, {8, 8, 1, 1}, {8, 1, 1, 0.125}, {8, 1, 8, 1}, {8, 2, 2, 1 - (6.0*5)/(8*7)}, {4, 1, 10, 1},
	}
	for _, tt := range tests {
		if got := PassAtK(tt.n, tt.c, tt.k); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("PassAtK(%d,%d,%d) = %v, want %v", tt.n, tt.c, tt.k, got, tt.want)
		}
	}
}

func TestVES(t *testing.T) {
	if got := VESRatio([]float64{2, 2, 2}, []float64{1, 1, 1}); got != 2 {
		t.Errorf("constant ratio = %v, want 2", got)
	}
	// One wild run among many is dropped by the 3-sigma rule.
	gold := make([]float64, 20)
	pred := make([]float64, 20)
	for i := range gold {
		gold[i], pred[i] = 1, 1
	}
	gold[0] = 1000
	if got := VESRatio(gold, pred); got != 1 {
		t.Errorf("outlier not removed: %v", got)
	}
	if got := VES([]float64{4, 0}); got != 100 {
		t.Errorf("VES = %v, want 100", got)
	}
	for ratio, want := range map[float64]float64{3: 1.25, 2: 1.25, 1: 1, 0.5: 0.75, 0.3: 0.5, 0.1: 0.25, 0: 0} {
		if got := RVESReward(ratio); got != want {
			t.Errorf("RVESReward(%v) = %v, want %v", ratio, got, want)
		}
	}
}
