package report

import _ "embed" // for Schema

// SchemaFile is the name of the report schema among the files
// limcheck vectors export writes.
const SchemaFile = "report.schema.json"

// Schema is report.schema.json: a JSON Schema (2020-12) of the
// reports limcheck run, replay and fuzz print with --json (format
// limcheck-report/1, [Format]; a run over several ports is
// limcheck-runs/1, [RunsFormat]).
//
//go:embed report.schema.json
var Schema []byte
