package main

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"time"
)

// axes map a panel's log-scaled store sizes (x) and latencies in ms (y) to pixels.
type axes struct {
	ox                 int // the panel's left edge in the image
	xlo, xhi, ylo, yhi float64
}

func (a axes) px(blocks float64) int {
	f := (math.Log10(blocks) - math.Log10(a.xlo)) / (math.Log10(a.xhi) - math.Log10(a.xlo))
	return a.ox + marginL + int(f*float64(panelW-marginL-marginR))
}

func (a axes) py(msec float64) int {
	msec = math.Max(msec, a.ylo)
	f := (math.Log10(msec) - math.Log10(a.ylo)) / (math.Log10(a.yhi) - math.Log10(a.ylo))
	return panelH - marginBelow - int(f*float64(panelH-marginTop-marginBelow))
}

var (
	gridGrey = color.RGBA{225, 225, 225, 255}
	axisGrey = color.RGBA{90, 90, 90, 255}
)

// panel draws the frame, the grid at each decade of latency and at each measured size, the
// labels and the title.
func (a axes) panel(img *image.RGBA, title string, sizes []int) {
	left, right := a.ox+marginL, a.ox+panelW-marginR
	top, bottom := marginTop, panelH-marginBelow
	for y := a.ylo; y <= a.yhi*1.0001; y *= 10 {
		fillRect(img, left, a.py(y), right, a.py(y)+1, gridGrey)
		label := fmt.Sprintf("%g ms", y)
		text(img, left-8-7*len(label), a.py(y)+4, label, axisGrey)
	}
	for _, s := range sizes {
		x := a.px(float64(s))
		fillRect(img, x, top, x+1, bottom, gridGrey)
		label := blocksLabel(s)
		text(img, x-7*len(label)/2, bottom+16, label, axisGrey)
	}
	fillRect(img, left, top, left+1, bottom, axisGrey)
	fillRect(img, left, bottom, right, bottom+1, axisGrey)
	text(img, left, top-14, title, color.Black)
	text(img, (left+right)/2-42, bottom+34, "blocks in store", axisGrey)
}

// blocksLabel writes 10000 as 10k and 1000000 as 1M.
func blocksLabel(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1000 && n%1000 == 0:
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprint(n)
}

// line joins the points of one curve, 2 pixels thick, dashed if asked, with a dot at each.
func (a axes) line(img *image.RGBA, sizes []int, lat []time.Duration, c color.Color, dashed bool) {
	for i := range sizes {
		x, y := a.px(float64(sizes[i])), a.py(msOf(lat[i]))
		fillRect(img, x-3, y-3, x+3, y+3, c)
		if i == 0 {
			continue
		}
		x0, y0 := a.px(float64(sizes[i-1])), a.py(msOf(lat[i-1]))
		steps := max(abs(x-x0), abs(y-y0), 1)
		for s := 0; s <= steps; s++ {
			if dashed && (s/6)%2 == 1 {
				continue
			}
			px := x0 + (x-x0)*s/steps
			py := y0 + (y-y0)*s/steps
			fillRect(img, px-1, py-1, px+1, py+1, c)
		}
	}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
