package main

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tablekit/tablekit/datamodel"
)

// Every document shows 5-10 representative items per table, each with the
// keys of an item its store declares (entity key templates, the index
// partitions its patterns read and write).
func TestEveryModelsRepresentativeItemsMatchItsDeclaration(t *testing.T) {
	for _, m := range models() {
		assert.NoError(t, datamodel.CheckItems(m), m.Store)
	}
}

// Every document gives the method's denormalization ideas for its design.
func TestEveryModelGivesDenormalizationIdeas(t *testing.T) {
	for _, m := range models() {
		assert.NotEmpty(t, m.Prose.Denormalization, m.Store)
	}
}
