package conformance

import _ "embed" // for ReportSchema

// ReportSchemaFile is the name of the report schema among the files
// limcheck vectors export writes.
const ReportSchemaFile = "report.schema.json"

// ReportSchema is report.schema.json: a JSON Schema (2020-12) of the
// reports limcheck run, replay and fuzz print with --json (format
// limcheck-report/1).
//
//go:embed report.schema.json
var ReportSchema []byte
