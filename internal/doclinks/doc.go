// Package doclinks holds the tests that every document the repository's files
// point a reader at is in the repository. Markdown links resolve, paths
// named in comments and documents (docs/..., examples/..., cmd/...,
// internal/...) exist, and nothing cites the design notes the systems
// started from by a name users cannot open ("seed 003", DESIGN.md): the
// systems are described in docs/systems/. Those documents and the README
// cite the API by name (`jobs.Work`, `Options.StagesInAnyOrder`,
// `ErrStageOrder`), and every name they cite is declared by the package it
// names, or by the document's own package: a rename that leaves a
// document behind fails.
package doclinks
