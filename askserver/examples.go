package askserver

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// ExampleQuestion is a question the page offers for a database
// (config databases.NAME.examples, or written from the schema).
type ExampleQuestion struct {
	Question string `json:"question"`
	Evidence string `json:"evidence,omitempty"`
}

// checkExamples checks a config's example questions; field names them in
// errors.
func checkExamples(field string, ex []ExampleQuestion) error {
	for i, e := range ex {
		f := fmt.Sprintf("%s[%d]", field, i)
		switch {
		case strings.TrimSpace(e.Question) == "":
			return fmt.Errorf("%s.question: empty", f)
		case utf8.RuneCountInString(e.Question) > MaxQuestionChars || utf8.RuneCountInString(e.Evidence) > MaxQuestionChars:
			return fmt.Errorf("%s: question and evidence are at most %d characters each", f, MaxQuestionChars)
		}
	}
	return nil
}
