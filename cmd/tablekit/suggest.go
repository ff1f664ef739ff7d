package main

import "strings"

// unknownCommand is the usage error for a command line that names no
// command, with the closest command's name when one is near enough to be
// a typo ("jobs lst": did you mean "jobs list"?).
func unknownCommand(args []string) error {
	typed := strings.Join(args[:min(2, len(args))], " ")
	if guess := suggest(args); guess != "" {
		return usagef("unknown command %q; did you mean %q?", typed, guess)
	}
	return usagef("unknown command %q", typed)
}

// suggest returns the command name closest to what args begin with, or ""
// when none is near enough to be a typo. The first two words are matched
// against two-word commands first ("jobs lst": "jobs list"), then the first
// word against one-word commands and group words ("tabels": "tables").
func suggest(args []string) string {
	var one, two []string // names of one and two words
	seen := map[string]bool{}
	add := func(name string) {
		if seen[name] {
			return
		}
		seen[name] = true
		if strings.Contains(name, " ") {
			two = append(two, name)
		} else {
			one = append(one, name)
		}
	}
	add("help")
	for _, c := range commands() {
		add(c.name)
		if group, _, ok := strings.Cut(c.name, " "); ok {
			add(group)
		}
	}
	if len(args) > 1 {
		if guess := closest(args[0]+" "+args[1], two); guess != "" {
			return guess
		}
	}
	return closest(args[0], one)
}

// closest returns the name nearest typed: at most two edits away, one for
// names of four letters or fewer (where two edits reach unrelated words).
// Ties go to the name first in sorted order, so the answer is stable.
func closest(typed string, names []string) string {
	best, bestDist := "", 3
	for _, name := range names {
		limit := 2
		if len(name) <= 4 {
			limit = 1
		}
		if d := editDistance(typed, name); d <= limit && (d < bestDist || d == bestDist && name < best) {
			best, bestDist = name, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, with a swap
// of two neighbouring letters counted as one edit (the common typo).
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
