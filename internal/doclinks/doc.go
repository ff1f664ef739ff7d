// Package doclinks holds one test: every document the repository's files
// point a reader at is in the repository. Markdown links resolve, paths
// named in comments and documents (docs/..., examples/..., cmd/...,
// internal/...) exist, and nothing cites the design notes the systems
// started from by a name users cannot open ("seed 003", DESIGN.md): the
// systems are described in docs/systems/.
package doclinks
