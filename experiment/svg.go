package experiment

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"math"
	"sort"
)

// palette colours the arms of a plot in order (colour-blind safe).
var palette = []string{"#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"}

func barsName(study, split string) string { return fmt.Sprintf("bars-%s-%s.svg", study, split) }

// Plots are the report's SVG files by name: bars by difficulty for every
// study and split, and, when there are training logs, reward mean and dev
// EX over steps per arm (seeds averaged by step). They are written by
// hand, with no dependency, and parse as XML.
func (rep *Report) Plots() map[string][]byte {
	out := map[string][]byte{}
	for _, st := range rep.Studies {
		for _, t := range st.Tables {
			out[barsName(st.Name, t.Split)] = bars(fmt.Sprintf("%s on %s: EX by difficulty (mean, min-max over seeds)", st.Name, t.Split), t)
		}
	}
	if len(rep.Curves) > 0 {
		out["plot-reward.svg"] = lines("reward mean per step", "reward", rep.Curves, func(c Curve) []Point { return c.Reward })
		out["plot-devex.svg"] = lines("dev EX during training (points)", "EX", rep.Curves, func(c Curve) []Point { return c.DevEX })
	}
	return out
}

const (
	plotW, plotH             = 720, 360
	marginL, marginR         = 50, 200
	marginT, marginB float64 = 30, 40
)

func svgOpen(b *bytes.Buffer, title string) {
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n", plotW, plotH, plotW, plotH)
	fmt.Fprintf(b, `<rect width="%d" height="%d" fill="white"/>`+"\n", plotW, plotH)
	fmt.Fprintf(b, `<text x="%d" y="18" font-size="13">%s</text>`+"\n", marginL, esc(title))
}

func esc(s string) string {
	var b bytes.Buffer
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

// axes draws the y axis from 0 to top with ticks, and returns the y of a
// value.
func axes(b *bytes.Buffer, top float64, label string) func(float64) float64 {
	x0, x1 := float64(marginL), float64(plotW-marginR)
	y0, y1 := float64(plotH)-marginB, marginT
	y := func(v float64) float64 { return y0 - (y0-y1)*v/top }
	for i := 0; i <= 4; i++ {
		v := top * float64(i) / 4
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/>`+"\n", x0, y(v), x1, y(v))
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="end">%.3g</text>`+"\n", x0-4, y(v)+4, v)
	}
	fmt.Fprintf(b, `<text x="12" y="%.1f" transform="rotate(-90 12 %.1f)" text-anchor="middle">%s</text>`+"\n", (y0+y1)/2, (y0+y1)/2, esc(label))
	fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="black"/>`+"\n", x0, y0, x1, y0)
	return y
}

func legend(b *bytes.Buffer, i int, label string) {
	x, y := float64(plotW-marginR+10), marginT+float64(i)*16
	fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="10" height="10" fill="%s"/>`+"\n", x, y, palette[i%len(palette)])
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f">%s</text>`+"\n", x+14, y+9, esc(label))
}

// niceTop rounds a maximum up to a round axis top.
func niceTop(v float64) float64 {
	if v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}

// bars draws a group per level, a bar per arm (its mean) with a whisker
// over the seeds' range.
func bars(title string, t Table) []byte {
	var b bytes.Buffer
	svgOpen(&b, title)
	top := 0.0
	for _, r := range t.Rows {
		for _, l := range Levels {
			top = max(top, r.Cells[l].Max)
		}
	}
	top = niceTop(top)
	y := axes(&b, top, "EX (points)")
	x0, x1 := float64(marginL), float64(plotW-marginR)
	gw := (x1 - x0) / float64(len(Levels))
	bw := gw * 0.8 / float64(max(1, len(t.Rows)))
	for li, l := range Levels {
		gx := x0 + gw*float64(li) + gw*0.1
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", x0+gw*(float64(li)+0.5), float64(plotH)-marginB+16, l)
		for ri, r := range t.Rows {
			c := r.Cells[l]
			if c.N == 0 {
				continue
			}
			bx := gx + bw*float64(ri)
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s %s: %s</title></rect>`+"\n",
				bx, y(c.Mean), bw*0.9, y(0)-y(c.Mean), palette[ri%len(palette)], esc(r.Label), l, esc(cellText(c)))
			if c.N > 1 {
				cx := bx + bw*0.45
				fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="black"/>`+"\n", cx, y(c.Min), cx, y(c.Max))
			}
		}
	}
	for ri, r := range t.Rows {
		legend(&b, ri, r.Label)
	}
	b.WriteString("</svg>\n")
	return b.Bytes()
}

// lines draws one line per arm: the mean over its seeds at each step.
func lines(title, label string, curves []Curve, pts func(Curve) []Point) []byte {
	type acc struct{ sum, n float64 }
	var arms []string
	byArm := map[string]map[int64]*acc{}
	var lastStep int64
	top := 0.0
	for _, c := range curves {
		if _, ok := byArm[c.Arm]; !ok {
			byArm[c.Arm] = map[int64]*acc{}
			arms = append(arms, c.Arm)
		}
		for _, p := range pts(c) {
			a := byArm[c.Arm][p.Step]
			if a == nil {
				a = &acc{}
				byArm[c.Arm][p.Step] = a
			}
			a.sum += p.Value
			a.n++
			lastStep = max(lastStep, p.Step)
			top = max(top, p.Value)
		}
	}
	var b bytes.Buffer
	svgOpen(&b, title)
	top = niceTop(top)
	y := axes(&b, top, label)
	x0, x1 := float64(marginL), float64(plotW-marginR)
	x := func(s int64) float64 { return x0 + (x1-x0)*float64(s)/float64(max(1, lastStep)) }
	fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">step (last %d)</text>`+"\n", (x0+x1)/2, float64(plotH)-marginB+28, lastStep)
	for i, arm := range arms {
		steps := make([]int64, 0, len(byArm[arm]))
		for s := range byArm[arm] {
			steps = append(steps, s)
		}
		sort.Slice(steps, func(a, b int) bool { return steps[a] < steps[b] })
		if len(steps) > 0 {
			b.WriteString(`<polyline fill="none" stroke-width="1.5" stroke="` + palette[i%len(palette)] + `" points="`)
			for k, s := range steps {
				a := byArm[arm][s]
				if k > 0 {
					b.WriteString(" ")
				}
				fmt.Fprintf(&b, "%.1f,%.1f", x(s), y(a.sum/a.n))
			}
			b.WriteString(`"/>` + "\n")
		}
		legend(&b, i, arm)
	}
	b.WriteString("</svg>\n")
	return b.Bytes()
}
