// Package keys builds and parses the composite keys of a single-table
// DynamoDB design.
//
// A key template is declared once per key shape, next to the entity it
// belongs to, in the notation the seeds use:
//
//	// SK "STAGE#01#raw_analysis" (the journey design (docs/systems/journey.md))
//	var stageSK = keys.MustSort("STAGE#{order:02d}#{stageId}")
//	// SK "T:prod:P:pipeline-123" (the pipeline design (docs/systems/pipeline.md))
//	var tagSK = keys.MustSort("T:{value}:P:{pipelineId}", keys.WithDelimiter(":"))
//	// PK "JOURNEY#JRN-ABC123456789"
//	var journeyPK = keys.MustPartition("JOURNEY#{journeyId}")
//	// SK "JOB#01#raw_analysis#001#2025-11-01T20:30:00.000000Z"
//	var jobSK = keys.MustSort("JOB#{order:02d}#{stageId}#{execution:03d}#{startedAt:time}")
//
// A pattern is segments separated by the delimiter ("#" unless
// WithDelimiter says otherwise). Each segment is a literal (STAGE, META,
// PV) or exactly one placeholder:
//
//	{name}        a string
//	{name:0Nd}    a non-negative integer, zero-padded to exactly N digits (N 1-19)
//	{name:time}   a time, UTC, microseconds, always 27 bytes: 2025-11-01T20:30:00.000000Z
//	{name:lower}  a string, written lower-cased ({name:upper}: upper-cased)
//
// A cased part makes the values that differ only in case one key (an email
// "Ann@Example.com" and "ann@example.com"): Build and Prefix case the value
// before checking it (its length is the written one's), and Parse accepts
// only a part in its case, as Build writes it. Parse then gives the cased
// value, not the one Build was given.
//
// Build writes a key from values in placeholder order, Parse reads one back,
// Match tells whether a key has the template's shape, and Prefix gives the
// begins_with value for "every key whose first parts are these".
//
// # Keys sort the way the data does
//
// DynamoDB orders sort keys by their UTF-8 bytes. Integers are therefore
// zero-padded to a fixed width, and a value that needs more digits fails
// with ErrOverflow instead of producing STAGE#100, which would sort between
// STAGE#10 and STAGE#11. Times are written with TimeLayout, which always
// keeps six fractional digits: time.RFC3339Nano drops trailing zeros, and
// "20:30:00Z" would then sort after "20:30:00.5Z". Years outside 0000-9999
// are rejected for the same reason.
//
// # One key, one reading
//
// A string part must not be empty, must be valid UTF-8 and must not hold
// the delimiter. Otherwise a user id "abc#STAGE" would build the partition
// key JOURNEY#abc#STAGE, which reads back as another entity's key, and a
// stage id "a#001" would sort inside the rules of stage "a". Because no
// part ever holds the delimiter, Prefix ends every given part with one: the
// prefix RULE#raw_analysis# matches the rules of stage raw_analysis and
// never those of raw_analysis_2. A key longer than DynamoDB accepts
// (2048 bytes for a partition key, 1024 for a sort key) is refused before
// any request is sent.
//
// Every rejection is an *Error naming the template, the part and the value,
// and wrapping one of the Err* sentinels:
//
//	keys: STAGE#{order:02d}#{stageId}: part "order": 100 does not fit width 2
//
// Parse accepts exactly the keys Build can write. Anything else fails with
// ErrMismatch, so Parse never returns wrong values for a key of another
// entity. Parts.Values gives the parsed values back in Build's order, and
// Parts.String the text of any part as it stands in the key ("01").
//
// # Delimiters
//
// Literals, integers and times have a known width, so only string parts end
// at a delimiter. That lets a time part sit in a template delimited by ":"
// (the pipeline design (docs/systems/pipeline.md)) even though the timestamp holds colons. A delimiter of more than
// one byte works too; a string part that would run into it ("a:" before
// "::") is refused like one that holds it.
//
// # Values Build refuses
//
// The zero time.Time is refused with ErrEmpty, like an empty string: a key
// stamped 0001-01-01T00:00:00.000000Z is a forgotten assignment, not a
// moment. Integers above math.MaxInt are refused with ErrOverflow, so
// Parts.Int can always return what Build took. Values of the wrong kind
// (a string for an int part, a *time.Time, a fmt.Stringer such as a ulid.ULID) fail with
// ErrType rather than being converted.
package keys
