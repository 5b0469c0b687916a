package prompt

import "strings"

// renderTable writes t as a CREATE TABLE statement in dialect d, with its
// columns in the given order (nil: as declared). Each column line carries a
// comment with its description and example values; a single-column primary
// key is written inline, a composite one and the foreign keys as table
// constraints. The text is one block: pruning and augmentation move whole
// blocks and never cut one.
func (d Dialect) renderTable(t *Table, order []int) string {
	var b strings.Builder
	b.WriteString("CREATE TABLE ")
	b.WriteString(d.QuoteIdent(t.Name))
	b.WriteString(" (\n")
	inlinePK := len(t.PrimaryKey) == 1
	var constraints []string
	if len(t.PrimaryKey) > 1 {
		constraints = append(constraints, "PRIMARY KEY ("+d.identList(t.PrimaryKey)+")")
	}
	for _, fk := range t.ForeignKeys {
		s := "FOREIGN KEY (" + d.identList(fk.Columns) + ") REFERENCES " + d.QuoteIdent(fk.RefTable)
		if len(fk.RefColumns) > 0 {
			s += " (" + d.identList(fk.RefColumns) + ")"
		}
		constraints = append(constraints, s)
	}
	n := len(t.Columns)
	for k := 0; k < n; k++ {
		i := k
		if order != nil {
			i = order[k]
		}
		c := &t.Columns[i]
		b.WriteString("  ")
		b.WriteString(d.QuoteIdent(c.Name))
		if c.Type != "" {
			b.WriteByte(' ')
			b.WriteString(c.Type)
		}
		if inlinePK && c.Name == t.PrimaryKey[0] {
			b.WriteString(" PRIMARY KEY")
		}
		if c.NotNull {
			b.WriteString(" NOT NULL")
		}
		if k < n-1 || len(constraints) > 0 {
			b.WriteByte(',')
		}
		if comment := columnComment(c); comment != "" {
			b.WriteString(" -- ")
			b.WriteString(comment)
		}
		b.WriteByte('\n')
	}
	for k, s := range constraints {
		b.WriteString("  ")
		b.WriteString(s)
		if k < len(constraints)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString(");")
	return b.String()
}

func columnComment(c *Column) string {
	var parts []string
	if c.Description != "" {
		parts = append(parts, c.Description)
	}
	if len(c.Examples) > 0 {
		parts = append(parts, "examples: "+strings.Join(c.Examples, ", "))
	}
	return strings.Join(parts, "; ")
}

func (d Dialect) identList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = d.QuoteIdent(n)
	}
	return strings.Join(q, ", ")
}
