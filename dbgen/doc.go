// Package dbgen generates verified Text2SQL training questions over any
// SQLite database: it introspects the database read-only (tables, keys,
// declared or inferred foreign keys, value statistics, BIRD's column
// descriptions or a user's descriptions file), types every column by role,
// draws questions from families of SQL shapes over the database's real
// values, executes every gold and keeps it only when its answer passes the
// plausibility checks, and writes the result in BIRD's layout with a sealed
// test split. `sqlrl bench from-db` is its command (docs/dbgen.md).
package dbgen
