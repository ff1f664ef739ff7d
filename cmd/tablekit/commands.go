package main

import (
	"errors"

	"github.com/tablekit/tablekit/blobstore"
	"github.com/tablekit/tablekit/jobs"
	"github.com/tablekit/tablekit/journey"
	"github.com/tablekit/tablekit/pipeline"
	"github.com/tablekit/tablekit/table"
	"github.com/tablekit/tablekit/tasks"
)

// commands lists every command, in the order help prints them.
func commands() []*command {
	var all []*command
	all = append(all, tablesCommands()...)
	all = append(all, inspectCommand())
	all = append(all, jobsCommands()...)
	all = append(all, tasksCommands()...)
	all = append(all, journeyCommands()...)
	all = append(all, pipelineCommands()...)
	all = append(all, versionCommand())
	return all
}

// notFound are the sentinels that make exit code 3.
var notFound = []error{
	table.ErrNotFound, table.ErrTableNotFound, blobstore.ErrNotFound,
	jobs.ErrNotFound, tasks.ErrNotFound, pipeline.ErrNotFound,
	journey.ErrJourneyNotFound, journey.ErrJobNotFound, journey.ErrStageNotFound, journey.ErrRuleNotFound,
}

func isNotFound(err error) bool {
	for _, target := range notFound {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}
