package keys_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/tablekit/tablekit/keys"
)

// The journey design's sort keys: stages ordered by a two-digit number, job
// executions by stage, attempt and start time.
var (
	stageSK = keys.MustSort("STAGE#{order:02d}#{stageId}")
	ruleSK  = keys.MustSort("RULE#{stageId}#{index:03d}#{ruleId}")
	jobSK   = keys.MustSort("JOB#{order:02d}#{stageId}#{execution:03d}#{startedAt:time}")
	tagSK   = keys.MustSort("T:{value}:P:{pipelineId}", keys.WithDelimiter(":"))
)

func ExampleTemplate_Build() {
	sk, err := stageSK.Build(1, "raw_analysis")
	fmt.Println(sk, err)

	started := time.Date(2025, 11, 1, 20, 30, 0, 0, time.UTC)
	sk, _ = jobSK.Build(1, "raw_analysis", 1, started)
	fmt.Println(sk)

	sk, _ = tagSK.Build("prod", "pipeline-123")
	fmt.Println(sk)

	// Order 100 would sort between 10 and 11; a user id holding "#"
	// would land in another entity's range. Both are refused.
	_, err = stageSK.Build(100, "raw_analysis")
	fmt.Println(err)
	_, err = stageSK.Build(2, "abc#STAGE")
	fmt.Println(errors.Is(err, keys.ErrDelimiter))
	// Output:
	// STAGE#01#raw_analysis <nil>
	// JOB#01#raw_analysis#001#2025-11-01T20:30:00.000000Z
	// T:prod:P:pipeline-123
	// keys: STAGE#{order:02d}#{stageId}: part "order": 100 does not fit width 2
	// true
}

func ExampleTemplate_Parse() {
	parts, err := jobSK.Parse("JOB#01#raw_analysis#001#2025-11-01T20:30:00.000000Z")
	if err != nil {
		panic(err)
	}
	fmt.Println(parts.Int("order"), parts.String("stageId"), parts.Int("execution"))
	fmt.Println(parts.Time("startedAt").Format(time.RFC1123))

	// A key of another entity is an error, never a wrong value.
	_, err = jobSK.Parse("STAGE#01#raw_analysis")
	fmt.Println(errors.Is(err, keys.ErrMismatch))
	// Output:
	// 1 raw_analysis 1
	// Sat, 01 Nov 2025 20:30:00 UTC
	// true
}

func ExampleTemplate_Prefix() {
	// begins_with(SK, :p) for every stage, and for the rules of one stage.
	all, _ := stageSK.Prefix()
	rules, _ := ruleSK.Prefix("raw_analysis")
	fmt.Println(all)
	fmt.Println(rules)

	// The trailing delimiter keeps raw_analysis_2's rules out.
	other, _ := ruleSK.Build("raw_analysis_2", 1, "r")
	fmt.Println(len(other) >= len(rules) && other[:len(rules)] == rules)

	tags, _ := tagSK.Prefix("prod")
	fmt.Println(tags)
	// Output:
	// STAGE#
	// RULE#raw_analysis#
	// false
	// T:prod:P:
}

func ExampleFormatTime() {
	t := time.Date(2025, 11, 1, 20, 30, 0, 0, time.UTC)
	// Fixed width, so keys sort by time; RFC3339Nano drops the zeros.
	fmt.Println(keys.FormatTime(t))
	fmt.Println(t.Format(time.RFC3339Nano))
	// Output:
	// 2025-11-01T20:30:00.000000Z
	// 2025-11-01T20:30:00Z
}
