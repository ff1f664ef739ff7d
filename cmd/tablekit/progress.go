package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
)

// progress reports long work: a live bar on a terminal, a plain line every
// few seconds (and one at the end) anywhere else, so logs stay readable.
type progress interface {
	// Set reports the work done so far (and the total, 0 when unknown).
	Set(done, total int64)
	// Done ends the report.
	Done()
}

// startProgress reports on a.errOut: standard output stays for results.
func (a *app) startProgress(label string) progress {
	if f, ok := a.errOut.(*os.File); ok && isTerminal(f) {
		p := mpb.New(mpb.WithOutput(f), mpb.WithWidth(40))
		bar := p.New(0, mpb.BarStyle(),
			mpb.PrependDecorators(decor.Name(label+" "), decor.CountersNoUnit("%d / %d")),
			mpb.AppendDecorators(decor.Elapsed(decor.ET_STYLE_GO)))
		return &barProgress{p: p, bar: bar}
	}
	return &lineProgress{w: a.errOut, label: label, every: 5 * time.Second}
}

type barProgress struct {
	p   *mpb.Progress
	bar *mpb.Bar
}

func (b *barProgress) Set(done, total int64) {
	if total < done {
		total = done
	}
	b.bar.SetTotal(total, false)
	b.bar.SetCurrent(done)
}

func (b *barProgress) Done() {
	b.bar.SetTotal(-1, true)
	b.p.Wait()
}

type lineProgress struct {
	w     io.Writer
	label string
	every time.Duration

	mu          sync.Mutex
	done, total int64
	last        time.Time
}

func (l *lineProgress) Set(done, total int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.done, l.total = done, total
	if now := time.Now(); now.Sub(l.last) >= l.every {
		l.last = now
		l.print()
	}
}

func (l *lineProgress) Done() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.print()
}

func (l *lineProgress) print() {
	if l.total > 0 {
		fmt.Fprintf(l.w, "%s: %d / %d\n", l.label, l.done, l.total)
		return
	}
	fmt.Fprintf(l.w, "%s: %d\n", l.label, l.done)
}
