package blocks

import "strings"

// Colours of the spec's table (block section): the two channels are independent.
var (
	textColors = set("default", "black", "gray", "brown", "orange", "pink", "yellow", "green", "blue", "purple", "red")
	bgColors   = set("default", "gray", "brown", "orange", "pink", "yellow", "green", "blue", "purple", "red",
		"light_yellow", "light_green", "light_blue", "light_purple", "light_red",
		"yellow_green", "green_blue", "blue_purple", "purple_red", "red_orange")
)

func set(vs ...string) map[string]bool {
	m := make(map[string]bool, len(vs))
	for _, v := range vs {
		m[v] = true
	}
	return m
}

// ValidTextColor reports whether c is an allowed text_color ("" counts as "default").
func ValidTextColor(c string) bool { return c == "" || textColors[c] }

// ValidBackgroundColor reports whether c is an allowed background_color ("" counts as "default").
func ValidBackgroundColor(c string) bool { return c == "" || bgColors[c] }

// LegacyColor maps Notion's single-channel color to the channel it sets: "red" sets the text
// channel, "red_background" the background channel. "default" (and, for clients that need a
// way to clear the background with the legacy field, "default_background") clear only their
// own channel. ok is false for any other value.
func LegacyColor(c string) (background bool, value string, ok bool) {
	if v, found := strings.CutSuffix(c, "_background"); found {
		return true, v, bgColors[v]
	}
	return false, c, textColors[c]
}

func orDefault(c string) string {
	if c == "" {
		return "default"
	}
	return c
}
