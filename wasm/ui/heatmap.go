package ui

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"math"
)

// heatmap renders rows of numbers as a PNG data URL, one pixel per number:
// white at 0, red for positive and blue for negative values, scaled by the
// largest magnitude. CSS scales it up with crisp pixels.
func heatmap(rows [][]float32) string {
	w := 0
	var peak float64
	for _, r := range rows {
		w = max(w, len(r))
		for _, v := range r {
			peak = max(peak, math.Abs(float64(v)))
		}
	}
	if w == 0 || len(rows) == 0 {
		return ""
	}
	img := image.NewRGBA(image.Rect(0, 0, w, len(rows)))
	for y, r := range rows {
		for x, v := range r {
			img.Set(x, y, shade(float64(v), peak))
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return ""
	}
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes())
}

func shade(v, peak float64) color.RGBA {
	if peak == 0 {
		return color.RGBA{255, 255, 255, 255}
	}
	t := uint8(255 * (1 - math.Min(1, math.Abs(v)/peak)))
	if v >= 0 {
		return color.RGBA{255, t, t, 255}
	}
	return color.RGBA{t, t, 255, 255}
}
