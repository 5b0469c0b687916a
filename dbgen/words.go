package dbgen

import (
	"strings"
)

// abbreviations spells out common name parts, so that a column named
// cust_addr reads "customer address".
var abbreviations = map[string]string{
	"num": "number", "no": "number", "nbr": "number", "qty": "quantity", "amt": "amount", "desc": "description",
	"dt": "date", "dob": "date of birth", "addr": "address", "cust": "customer", "emp": "employee", "dept": "department",
	"pct": "percentage", "perc": "percentage", "cnt": "count", "avg": "average", "min": "minimum", "max": "maximum",
	"yr": "year", "mo": "month", "tel": "telephone", "ph": "phone", "cat": "category", "prod": "product",
	"acct": "account", "bal": "balance", "grp": "group", "std": "standard", "temp": "temperature", "pos": "position",
	"st": "street", "descr": "description", "img": "image", "url": "web address", "org": "organisation",
	"kg": "kg", "cm": "cm", "id": "id", "fname": "first name", "lname": "last name",
}

// readable turns a name into words: parts split, abbreviations spelt out.
func readable(name string) string {
	parts := nameParts(name)
	for i, p := range parts {
		if a, ok := abbreviations[p]; ok {
			parts[i] = a
		}
	}
	if len(parts) == 0 {
		return name
	}
	return strings.Join(parts, " ")
}

// plural is a regular English plural of a noun phrase's last word.
func plural(s string) string {
	if s == "" {
		return s
	}
	words := strings.Fields(s)
	w := words[len(words)-1]
	lw := strings.ToLower(w)
	switch {
	case irregular[lw] != "":
		w = irregular[lw]
	case strings.HasSuffix(lw, "hero") || strings.HasSuffix(lw, "potato") || strings.HasSuffix(lw, "tomato"):
		w += "es"
	case strings.HasSuffix(lw, "s") || strings.HasSuffix(lw, "x") || strings.HasSuffix(lw, "ch") || strings.HasSuffix(lw, "sh"):
		if !strings.HasSuffix(lw, "ss") && strings.HasSuffix(lw, "s") && len(lw) > 3 {
			// already plural ("attendees"), or a mass noun: leave it
			break
		}
		w += "es"
	case strings.HasSuffix(lw, "y") && len(lw) > 1 && !strings.ContainsRune("aeiou", rune(lw[len(lw)-2])):
		w = w[:len(w)-1] + "ies"
	default:
		w += "s"
	}
	words[len(words)-1] = w
	return strings.Join(words, " ")
}

var irregular = map[string]string{"person": "people", "child": "children", "man": "men", "woman": "women",
	"attendance": "attendances", "information": "information", "data": "data", "staff": "staff", "info": "info"}

// measureWords give implicit superlatives and comparatives for measures by
// a word of their name: a question says "heaviest", not "highest weight".
var measureWords = map[string][4]string{
	// most, least, more than, less than
	"weight": {"heaviest", "lightest", "weighing more than", "weighing less than"},
	"height": {"tallest", "shortest", "taller than", "shorter than"},
	"age":    {"oldest", "youngest", "older than", "younger than"},
	"price":  {"most expensive", "cheapest", "priced above", "priced below"},
	"cost":   {"most expensive", "cheapest", "costing more than", "costing less than"},
	"amount": {"largest", "smallest", "of more than", "of less than"},
	"spent":  {"biggest spending", "smallest spending", "spending more than", "spending less than"},
	"salary": {"best paid", "worst paid", "earning more than", "earning less than"},
	"length": {"longest", "shortest", "longer than", "shorter than"},
	"score":  {"highest scoring", "lowest scoring", "scoring above", "scoring below"},
	"budget": {"biggest budget", "smallest budget", "with a budget over", "with a budget under"},
	"size":   {"largest", "smallest", "larger than", "smaller than"},
}

// measureWord returns the implicit words for a measure column, if any.
func measureWord(c *Column) ([4]string, bool) {
	for _, p := range append(nameParts(c.Name), strings.Fields(strings.ToLower(c.Label))...) {
		if w, ok := measureWords[p]; ok {
			return w, true
		}
	}
	return [4]string{}, false
}

// shortLabel drops unit and key suffixes from a label ("weight kg" ->
// "weight", "publisher id" -> "publisher").
func shortLabel(c *Column) string {
	ws := strings.Fields(strings.ToLower(c.Label))
	// "link to major", "ref event", "fk member": the referenced thing.
	for len(ws) > 1 && (ws[0] == "link" || ws[0] == "to" || ws[0] == "ref" || ws[0] == "fk" || ws[0] == "references") {
		ws = ws[1:]
	}
	for len(ws) > 1 {
		switch ws[len(ws)-1] {
		case "kg", "cm", "id", "usd", "eur", "km", "mm", "m", "g", "lb":
			ws = ws[:len(ws)-1]
			continue
		}
		break
	}
	return strings.Join(ws, " ")
}

// synonyms are other words people use for common column words.
var synonyms = map[string][]string{
	"type": {"kind"}, "category": {"kind", "class"}, "position": {"role", "post"}, "status": {"state"}, "location": {"place", "venue"},
	"source": {"origin"}, "first name": {"given name", "forename"}, "last name": {"surname", "family name"}, "full name": {"real name", "complete name"},
	"college": {"school", "faculty"}, "department": {"unit"}, "cost": {"price"}, "date": {"day"}, "colour": {"color"},
	"color": {"colour"}, "notes": {"remarks"}, "email": {"e-mail address", "email address"}, "phone": {"phone number", "telephone number"},
	"height": {"stature"}, "remaining": {"amount left", "balance"}, "spent": {"amount spent", "spending"}, "city": {"town"},
	"zip": {"postal code"}, "zip code": {"postal code"}, "race": {"species"}, "alignment": {"moral alignment", "side"},
	"publisher": {"publishing house", "comic publisher"}, "attribute": {"trait"}, "power": {"ability", "superpower"},
	"description": {"details"}, "major": {"field of study", "study programme"}, "size": {"dimension"},
	"amount": {"value", "sum of money"}, "short state": {"state code", "state abbreviation"},
}
