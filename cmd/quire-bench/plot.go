package main

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"os"
	"slices"
	"time"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// Plot geometry: one panel per engine, side by side, with room for axis labels and a legend.
const (
	panelW, panelH         = 560, 420
	marginL, marginR       = 64, 16
	marginTop, marginBelow = 40, 44
	legendH                = 110
)

// endpointColors tell the endpoints apart; the same colour in every panel.
var endpointColors = map[string]color.RGBA{
	"me": {120, 120, 120, 255}, "page": {31, 119, 180, 255}, "children": {255, 127, 14, 255},
	"query": {44, 160, 44, 255}, "search": {214, 39, 40, 255}, "semantic": {148, 103, 189, 255},
	"append": {140, 86, 75, 255},
}

// curve is one endpoint's latencies at each size.
type curve struct {
	endpoint string
	sizes    []int
	p50, p99 []time.Duration
}

// writePlot draws p50 (solid) and p99 (dashed) latency against store size, log-log, per
// endpoint at the lowest concurrency measured, one panel per engine, into a PNG at path.
func writePlot(path string, res *results) error {
	var engines []string
	conns := math.MaxInt
	var lo, hi float64 = math.Inf(1), 0
	sizes := map[int]bool{}
	for _, s := range res.Sets {
		if s.Blocks == 0 {
			continue
		}
		if !slices.Contains(engines, s.Engine) {
			engines = append(engines, s.Engine)
		}
		sizes[s.Blocks] = true
		for _, r := range s.Rows {
			conns = min(conns, r.Conns)
		}
	}
	if len(engines) == 0 {
		return errors.New("--plot: no measured store size above 0 blocks to draw")
	}
	curves := map[string][]*curve{}
	for _, s := range res.Sets {
		for _, r := range s.Rows {
			if s.Blocks == 0 || r.Conns != conns {
				continue
			}
			sum := summarize(r)
			if sum.rps == 0 {
				continue
			}
			i := slices.IndexFunc(curves[s.Engine], func(c *curve) bool { return c.endpoint == r.Endpoint })
			if i < 0 {
				curves[s.Engine] = append(curves[s.Engine], &curve{endpoint: r.Endpoint})
				i = len(curves[s.Engine]) - 1
			}
			c := curves[s.Engine][i]
			c.sizes, c.p50, c.p99 = append(c.sizes, s.Blocks), append(c.p50, sum.p50), append(c.p99, sum.p99)
			lo, hi = math.Min(lo, msOf(sum.p50)), math.Max(hi, msOf(sum.p99))
		}
	}
	xs := slices.Sorted(func(yield func(int) bool) {
		for k := range sizes {
			if !yield(k) {
				return
			}
		}
	})
	ax := axes{xlo: float64(xs[0]) / 2, xhi: float64(xs[len(xs)-1]) * 2,
		ylo: math.Pow(10, math.Floor(math.Log10(lo))), yhi: math.Pow(10, math.Ceil(math.Log10(hi)))}
	img := image.NewRGBA(image.Rect(0, 0, panelW*len(engines), panelH+legendH))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	for i, eng := range engines {
		ax.ox = i * panelW
		ax.panel(img, fmt.Sprintf("%s, c=%d", engineTitles[eng], conns), xs)
		for _, c := range curves[eng] {
			ax.line(img, c.sizes, c.p50, endpointColors[c.endpoint], false)
			ax.line(img, c.sizes, c.p99, endpointColors[c.endpoint], true)
		}
	}
	legend(img, conns)
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func msOf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// legend names the endpoints' colours and the two line styles under the panels.
func legend(img *image.RGBA, conns int) {
	x, y := marginL, panelH+18
	for _, name := range endpointNames {
		w := 34 + 7*len(endpointLabels[name])
		if x+w > img.Bounds().Dx() {
			x, y = marginL, y+18
		}
		fillRect(img, x, y-5, x+18, y-2, endpointColors[name])
		text(img, x+22, y, endpointLabels[name], color.Black)
		x += w
	}
	text(img, marginL, y+22, fmt.Sprintf("solid: p50, dashed: p99; %d connection(s); both axes logarithmic", conns), color.Black)
}

// text writes s with its baseline at (x, y) in the 7x13 bitmap font.
func text(img *image.RGBA, x, y int, s string, c color.Color) {
	d := font.Drawer{Dst: img, Src: image.NewUniform(c), Face: basicfont.Face7x13, Dot: fixed.P(x, y)}
	d.DrawString(s)
}

func fillRect(img *image.RGBA, x0, y0, x1, y1 int, c color.Color) {
	draw.Draw(img, image.Rect(x0, y0, x1, y1), image.NewUniform(c), image.Point{}, draw.Src)
}
