package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/tablekit/tablekit/table"
)

// pageFlags are a list command's -limit and -cursor.
type pageFlags struct {
	limit  int
	cursor string
}

func (p *pageFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&p.limit, "limit", 25, "items per page")
	fs.StringVar(&p.cursor, "cursor", "", "the page to print: the 'next' cursor a previous page printed")
}

// pageOut is how a page prints as JSON.
type pageOut[T any] struct {
	Items []T    `json:"items"`
	Next  string `json:"next,omitempty"`
}

// emitPage prints one page of a list: a row per item and the next page's
// cursor. noun names what is listed ("dead tasks"): an empty page says
// "no dead tasks found" on standard error (standard output stays empty for
// scripts), and prints "items": [] as JSON, never null.
func emitPage[T any](a *app, p table.Page[T], noun string, row func(w io.Writer, item T)) error {
	items := p.Items
	if items == nil {
		items = []T{}
	}
	if len(items) == 0 && a.global.output != "json" {
		a.nothingFound(noun)
	}
	return a.emit(pageOut[T]{Items: items, Next: p.Next}, func(w io.Writer) {
		for _, item := range items {
			row(w, item)
		}
		if p.Next != "" {
			fmt.Fprintf(w, "\nnext page: -cursor %s\n", p.Next)
		}
	})
}

// nothingFound tells the operator a list is empty, on standard error, so a
// script reading standard output sees no rows rather than a sentence.
func (a *app) nothingFound(noun string) {
	fmt.Fprintf(a.errOut, "no %s found\n", noun)
}

// dryRunOut is what a -dry-run prints as JSON: what the command would do,
// to how many things, and which.
type dryRunOut[T any] struct {
	DryRun bool   `json:"dryRun"`
	Action string `json:"action"`
	Count  int    `json:"count"`
	Items  []T    `json:"items"`
}

// emitDryRun prints what a destructive command would change: a row per
// item, then "would <action> N <noun> (dry run: nothing changed)".
func emitDryRun[T any](a *app, action, noun string, items []T, row func(w io.Writer, item T)) error {
	if items == nil {
		items = []T{}
	}
	return a.emit(dryRunOut[T]{DryRun: true, Action: action, Count: len(items), Items: items}, func(w io.Writer) {
		for _, item := range items {
			row(w, item)
		}
		fmt.Fprintf(w, "would %s %d %s (dry run: nothing changed)\n", action, len(items), noun)
	})
}
