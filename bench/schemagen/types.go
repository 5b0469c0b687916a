// Package schemagen designs databases procedurally for sqlrl's benchmark
// (v2): from a vocabulary of entities, attributes and relations it draws
// domains and, per domain, database designs of 6-15 tables and 40-150
// columns (link tables for many-to-many relations, self references,
// several join paths between two tables, distractor tables), names some
// columns in abbreviated or opaque form explained in BIRD's
// database_description/*.csv, and fills them with data as real databases
// hold it: NULLs, codes ('F', 'CA') whose meaning is in the descriptions,
// inconsistent case and whitespace, dates and numbers stored as text in
// mixed formats, near-duplicate names.
//
// Everything a question generator needs to talk about a database is kept
// beside it: each table's and column's natural phrase, each column's role,
// each code's meaning. The output is deterministic for a seed.
//
// What a correct query must do about the dirt a Column records:
//   - DirtCase, DirtSpace: compare LOWER(TRIM(col)) with the lower-cased
//     canonical value (Column.Values); GROUP BY the same expression.
//   - DirtMixedFormat on a date (Formats ISO and US): normalise with
//     CASE WHEN col LIKE '__/__/____' THEN substr(col,7,4)||'-'||substr(col,1,2)||'-'||substr(col,4,2) ELSE col END.
//     A clean date column is Type DATE holding 'YYYY-MM-DD' text.
//   - DirtNumberText (Formats "$1,234.50", maybe also "1234.5"): use
//     CAST(REPLACE(REPLACE(col,'$',”),',',”) AS REAL).
//   - DirtNearDuplicate: a few rows name the same person or firm in
//     another spelling ("Jon"/"John" with the same last name, "Acme
//     Corp"/"Acme Corporation"); such columns get no case or space dirt
//     and no NULLs, and a question should not count distinct names of
//     them as distinct things.
//   - NULLs: NullShare is the measured share; COUNT(col) and COUNT(*)
//     differ exactly where it is above 0.
package schemagen

// DB is one generated database: design, natural language and rows.
type DB struct {
	// ID is the db_id ("clinic_2"); Domain names its domain ("clinic"):
	// databases of one domain share a vocabulary, and a split that holds
	// a domain out holds out all its databases.
	ID, Domain string
	Tables     []*Table
}

// Table kinds.
const (
	KindEntity     = "entity"     // a thing the domain is about (patient, product)
	KindEvent      = "event"      // something that happens, with a date (admission, order)
	KindLink       = "link"       // a many-to-many relation (enrolment of student in course)
	KindLookup     = "lookup"     // a small code table (department, category)
	KindDistractor = "distractor" // related to the domain, never needed by the questions it asks most
)

// Table is one table.
type Table struct {
	// Name is the SQL name (may be abbreviated: "pt_visit").
	Name string
	Kind string
	// Noun is how the table's rows are spoken of.
	Noun Noun
	// Description is the table's one-line description.
	Description string
	Columns     []*Column
	// PK names the primary key column(s).
	PK  []string
	FKs []FK
	// Rows hold the data, one value per column in Columns' order: nil
	// (NULL), int64, float64 or string.
	Rows [][]any

	spec *tableSpec
}

// Noun is a phrase with its plural ("patient", "patients").
type Noun struct{ One, Many string }

// FK is a foreign key of one column.
type FK struct {
	Column, RefTable, RefColumn string
	// Phrase says the relation from this table's side ("treated by",
	// "placed by"), for questions that follow it.
	Phrase string
}

// Column roles: what a column holds, which decides the questions a
// generator can ask of it.
const (
	RoleID       = "id"       // a surrogate key
	RoleFK       = "fk"       // a reference to another table's key
	RoleName     = "name"     // a human-readable name (may have near-duplicates)
	RoleText     = "text"     // free text (titles, notes)
	RoleCategory = "category" // a small set of values stored as words
	RoleCode     = "code"     // a small set of values stored as codes (Codes gives meanings)
	RoleMeasure  = "measure"  // a number with a unit (price, weight, salary)
	RoleCount    = "count"    // a non-negative integer quantity
	RoleDate     = "date"     // a date or datetime
	RoleFlag     = "flag"     // a yes/no value (0/1, 'Y'/'N', ...)
)

// Column is one column.
type Column struct {
	// Name is the SQL name; Phrase its natural phrase ("admission
	// date"); Description BIRD's column_description, ValueDescription
	// BIRD's value_description (what codes mean, units, formats).
	Name, Phrase, Description, ValueDescription string
	// Type is the declared SQL type (INTEGER, REAL, TEXT, DATE).
	Type string
	Role string
	// Codes maps each stored code to its meaning (RoleCode, RoleFlag).
	// Integer codes and 0/1 flags are keyed by their decimal text ("1").
	Codes map[string]string
	// Values lists the canonical values of a RoleCategory column (before
	// any case or whitespace dirt), most frequent first: a question that
	// names a category names one of these.
	Values []string
	// Unit of a measure ("USD", "kg").
	Unit string
	// Formats lists the text formats its dates or numbers are stored in
	// when stored as text, e.g. "2006-01-02", "01/02/2006", "$1,234.50":
	// more than one means the column mixes them (dirty).
	Formats []string
	// Dirty lists the kinds of dirt in its values ("case", "space",
	// "near_duplicate", "mixed_format"); NullShare is the share of NULLs.
	Dirty     []string
	NullShare float64
	// Bookkeeping marks columns every table of its kind may carry (record
	// dates, notes, status, clerk): incidental to the domain, distractors
	// for most questions.
	Bookkeeping bool
	// Abbreviated says Name is not plain words (pt_adm_dt, amt_usd): its
	// meaning is only in Phrase and Description.
	Abbreviated bool

	spec     *attrSpec
	refTable *Table
}

// Dirt kinds recorded in Column.Dirty.
const (
	DirtCase          = "case"           // some values in another case ("CARDIOLOGY", "cardiology")
	DirtSpace         = "space"          // some values with leading or trailing spaces
	DirtNearDuplicate = "near_duplicate" // some names are variants of others ("Jon Smith"/"John Smith")
	DirtMixedFormat   = "mixed_format"   // dates or numbers as text in more than one format (Formats)
	DirtNumberText    = "number_text"    // a number stored as text with '$' or ',' (Formats)
)

// Formats of dates and numbers stored as text, as Go reference layouts
// (dates) or examples (numbers).
const (
	FormatISODate    = "2006-01-02"
	FormatUSDate     = "01/02/2006"
	FormatMoneyText  = "$1,234.50" // '$', thousands commas, two decimals
	FormatPlainFloat = "1234.5"    // plain decimal text
)
