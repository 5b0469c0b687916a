package bench

import (
	"math"
	"math/rand/v2"
	"strings"
)

// Library: authors, books, members and loans with due dates and fines.

// Title vocabulary. No word is a substring of another word of any title, so
// "the word 'River' in the title" and LIKE '%River%' agree.
var titleAdjectives = []string{"Silent", "Hidden", "Broken", "Golden", "Forgotten", "Last", "Crimson", "Distant", "Secret", "Burning", "Winter", "Summer", "Quiet", "Wild", "Lost", "Midnight", "Iron", "Silver", "Paper", "Glass", "Northern", "Bitter", "Endless", "Hollow", "Electric"}
var titleNouns = []string{"River", "Garden", "House", "Kingdom", "Letter", "Mirror", "Harbor", "Orchard", "Lantern", "Forest", "Island", "Bridge", "Compass", "Tower", "Shadow", "Promise", "Journey", "Storm", "Valley", "Crown", "Machine", "Map", "Song", "Tide", "Archive", "Circus", "Station", "Meadow", "Voyage", "Empire"}
var titleThings = []string{"Ashes", "Stars", "Dust", "Bones", "Salt", "Smoke", "Light", "Thorns", "Silence", "Rain", "Embers", "Echoes"}
var titleNames = []string{"Grace", "Oliver", "Clara", "Jonah", "Maya", "Theo", "Iris", "Felix"}

var genres = []string{"Fiction", "Mystery", "Science Fiction", "Fantasy", "Romance", "History", "Biography", "Science", "Poetry", "Children", "Travel", "Self-Help"}
var genrePages = map[string][2]float64{"Fiction": {180, 520}, "Mystery": {200, 450}, "Science Fiction": {220, 650}, "Fantasy": {250, 900}, "Romance": {180, 420}, "History": {250, 800}, "Biography": {220, 700}, "Science": {180, 600}, "Poetry": {60, 200}, "Children": {24, 160}, "Travel": {120, 400}, "Self-Help": {150, 350}}

var membershipTypes = []string{"standard", "student", "senior", "premium"}

func libraryDomain() *domain {
	return &domain{
		name: "library", devName: "lending",
		title:    "a public library: authors, books by genre, members with membership types, and loans with due dates, returns and fines",
		tables:   libraryTables,
		populate: populateLibrary,
		families: libraryFamilies,
	}
}

var libraryTables = []table{
	{name: "author", dev: "writer", pk: []string{"author_id"}, cols: []column{
		{name: "author_id", dev: "writer_id", typ: "integer", desc: "unique id of the author"},
		{name: "first_name", dev: "given_name", typ: "text", desc: "the author's first name"},
		{name: "last_name", dev: "surname", typ: "text", desc: "the author's last name"},
		{name: "birth_year", dev: "year_of_birth", typ: "integer", desc: "year the author was born"},
		{name: "country", dev: "nationality", typ: "text", desc: "the author's country"},
	}},
	{name: "book", dev: "volume", pk: []string{"book_id"}, cols: []column{
		{name: "book_id", dev: "volume_id", typ: "integer", desc: "unique id of the book"},
		{name: "title", dev: "volume_title", typ: "text", desc: "title of the book"},
		{name: "author_id", dev: "writer_id", typ: "integer", desc: "the book's author", ref: "author.author_id"},
		{name: "genre", dev: "subject", typ: "text", desc: "genre of the book", values: "e.g. 'Fiction', 'Mystery', 'Science Fiction', 'Poetry', 'Children'"},
		{name: "publication_year", dev: "year_published", typ: "integer", desc: "year the book was published"},
		{name: "page_count", dev: "pages", typ: "integer", desc: "number of pages"},
	}},
	{name: "member", dev: "patron", pk: []string{"member_id"}, cols: []column{
		{name: "member_id", dev: "patron_id", typ: "integer", desc: "unique id of the library member"},
		{name: "first_name", dev: "given_name", typ: "text", desc: "the member's first name"},
		{name: "last_name", dev: "surname", typ: "text", desc: "the member's last name"},
		{name: "city", dev: "home_city", typ: "text", desc: "city the member lives in"},
		{name: "join_date", dev: "registered_on", typ: "date", desc: "date the member joined the library", values: "YYYY-MM-DD"},
		{name: "membership_type", dev: "plan_type", typ: "text", desc: "kind of membership", values: "'standard', 'student', 'senior' or 'premium'"},
	}},
	{name: "loan", dev: "checkout", pk: []string{"loan_id"}, cols: []column{
		{name: "loan_id", dev: "checkout_id", typ: "integer", desc: "unique id of the loan"},
		{name: "book_id", dev: "volume_id", typ: "integer", desc: "the borrowed book", ref: "book.book_id"},
		{name: "member_id", dev: "patron_id", typ: "integer", desc: "the borrowing member", ref: "member.member_id"},
		{name: "loan_date", dev: "checked_out_on", typ: "date", desc: "date the book was borrowed", values: "YYYY-MM-DD"},
		{name: "due_date", dev: "due_on", typ: "date", desc: "date the book was due back", values: "YYYY-MM-DD"},
		{name: "return_date", dev: "returned_on", typ: "date", desc: "date the book was returned", values: "YYYY-MM-DD; NULL if the book has not been returned"},
		{name: "fine_amount", dev: "late_fee", typ: "real", desc: "fine charged for returning the book late, in US dollars", values: "0 when returned on time"},
	}},
}

func populateLibrary(b *builder, r *rand.Rand) {
	last := newSkewed(r, lastNames, 0.6)
	nats := newSkewed(r, countries, 0.9)
	nAuth := b.count(300, 40)
	type author struct {
		born  int
		genre string
	}
	auths := make([]author, nAuth)
	for i := range nAuth {
		p := newPerson(r, last)
		auths[i] = author{born: 1900 + r.IntN(96), genre: pick(r, genres)}
		b.add("author", i+1, p.first, p.last, auths[i].born, nats.draw(r))
	}
	authW := newWeighted(nAuth, 0.5)
	authOrder := shuffled(r, seq(nAuth))
	nBook := b.count(1500, 100)
	seen := map[string]bool{}
	books := 0
	for tries := 0; books < nBook && tries < nBook*20; tries++ {
		var title string
		switch pickWeighted(r, []float64{45, 25, 10, 20}) {
		case 0:
			title = "The " + pick(r, titleAdjectives) + " " + pick(r, titleNouns)
		case 1:
			title = pick(r, titleNouns) + " of " + pick(r, titleThings)
		case 2:
			noun := pick(r, titleNouns)
			article := "A "
			if strings.ContainsRune("AEIOU", rune(noun[0])) {
				article = "An "
			}
			title = article + noun + " for " + pick(r, titleNames)
		default:
			n1, n2 := pick(r, titleNouns), pick(r, titleNouns)
			if n1 == n2 {
				continue
			}
			title = "The " + n1 + "'s " + n2
		}
		if seen[title] {
			continue
		}
		seen[title] = true
		a := authOrder[authW.draw(r)]
		g := auths[a].genre
		if r.IntN(10) < 3 {
			g = pick(r, genres)
		}
		lo := max(auths[a].born+20, 1920)
		year := lo + r.IntN(max(1, 2024-lo+1))
		pg := genrePages[g]
		pages := int(math.Round(uniform(r, pg[0], pg[1])))
		books++
		b.add("book", books, title, a+1, g, min(year, 2024), pages)
	}
	cities := newSkewed(r, subset(r, usCities, 12), 0.8)
	nMem := b.count(1500, 80)
	joins := make([]string, nMem)
	for i := range nMem {
		p := newPerson(r, last)
		joins[i] = fmtDate(dateBetween(r, day(2015, 1, 1), day(2024, 6, 30)))
		b.add("member", i+1, p.first, p.last, cities.draw(r).name, joins[i], membershipTypes[pickWeighted(r, []float64{60, 20, 12, 8})])
	}
	memW := newWeighted(nMem, 0.4)
	memOrder := shuffled(r, seq(nMem))
	bookW := newWeighted(books, 0.6)
	bookOrder := shuffled(r, seq(books))
	nLoan := b.count(10000, 300)
	for l := 1; l <= nLoan; l++ {
		m := memOrder[memW.draw(r)]
		from := parseDay(joins[m])
		if from.Before(day(2021, 1, 1)) {
			from = day(2021, 1, 1)
		}
		out := dateBetween(r, from, day(2024, 12, 31))
		due := out.AddDate(0, 0, 21)
		var ret any
		fine := 0.0
		switch {
		case out.After(day(2024, 12, 10)) && r.IntN(2) == 0, r.IntN(40) == 0:
		default:
			back := out.AddDate(0, 0, 1+min(int(r.ExpFloat64()*12), 80))
			ret = fmtDate(back)
			if late := int(back.Sub(due).Hours() / 24); late > 0 {
				fine = math.Min(15, 0.25*float64(late))
			}
		}
		b.add("loan", l, bookOrder[bookW.draw(r)]+1, m+1, fmtDate(out), fmtDate(due), ret, fine)
	}
}

var libraryFamilies = []family{
	{"library/genre_after_year", Simple, func(q *candidate) {
		genre := q.Distinct("book.genre")
		year := q.DistinctInt("book.publication_year")
		q.Ask([]string{"How many {genre} books were published after {year}?", "Count the books in the {genre} genre published later than {year}.", "What is the number of {genre} books with a publication year after {year}?"}, "genre", genre, "year", itoa(int(year)))
		q.SQL("SELECT COUNT(*) FROM {book} WHERE {book.genre} = ? AND {book.publication_year} > ?", genre, year)
	}},
	{"library/long_books", Simple, func(q *candidate) {
		r := q.Pick("SELECT {book.genre}, {book.page_count} FROM {book} ORDER BY 1, 2")
		genre, n := r.S(0), nice(r.F(1))
		q.Ask([]string{"How many {genre} books have more than {n} pages?", "Count the {genre} books longer than {n} pages.", "What is the number of books in the {genre} genre with a page count above {n}?"}, "genre", genre, "n", num(n))
		q.SQL("SELECT COUNT(*) FROM {book} WHERE {book.genre} = ? AND {book.page_count} > ?", genre, n)
	}},
	{"library/book_lookup", Simple, func(q *candidate) {
		title := q.Unique("book.title")
		if q.Coin() {
			q.Ask([]string{"In which year was {t} published?", "What is the publication year of the book {t}?", "When was {t} published? Give the year."}, "t", "\""+title+"\"")
			q.SQL("SELECT {book.publication_year} FROM {book} WHERE {book.title} = ?", title)
		} else {
			q.Ask([]string{"How many pages does {t} have?", "What is the page count of the book {t}?", "Give the number of pages of {t}."}, "t", "\""+title+"\"")
			q.SQL("SELECT {book.page_count} FROM {book} WHERE {book.title} = ?", title)
		}
		q.One()
	}},
	{"library/longest_in_genre", Simple, func(q *candidate) {
		genre := q.Distinct("book.genre")
		long := q.Coin()
		if long {
			q.Ask([]string{"What is the title of the longest {genre} book?", "Which {genre} book has the most pages? Give its title.", "Name the {genre} book with the highest page count."}, "genre", genre)
			q.Ev("longest refers to MAX({book.page_count})")
		} else {
			q.Ask([]string{"What is the title of the shortest {genre} book?", "Which {genre} book has the fewest pages? Give its title.", "Name the {genre} book with the lowest page count."}, "genre", genre)
			q.Ev("shortest refers to MIN({book.page_count})")
		}
		q.Top("{book.title}", "FROM {book} WHERE {book.genre} = ?", "{book.page_count}", long, genre)
	}},
	{"library/title_word", Simple, func(q *candidate) {
		w := q.Choose(append(append([]string{}, titleNouns...), titleAdjectives...)...)
		genre := q.Distinct("book.genre")
		q.Ask([]string{"How many {genre} books have the word '{w}' in their title?", "Count the {genre} books whose title contains '{w}'.", "What is the number of books in the {genre} genre with '{w}' in the title?"}, "w", w, "genre", genre)
		q.Ev("the word '"+w+"' in their title refers to {book.title} LIKE ?", "%"+w+"%")
		q.SQL("SELECT COUNT(*) FROM {book} WHERE {book.genre} = ? AND {book.title} LIKE ?", genre, "%"+w+"%")
	}},
	{"library/members_type_city", Simple, func(q *candidate) {
		city := q.Distinct("member.city")
		t := q.Choose(membershipTypes...)
		q.Ask([]string{"How many members with a {t} membership live in {city}?", "Count the {t} members who live in {city}.", "What is the number of library members from {city} whose membership type is {t}?"}, "t", t, "city", city)
		q.Ev(t+" membership refers to {member.membership_type} = ?", t)
		q.SQL("SELECT COUNT(*) FROM {member} WHERE {member.city} = ? AND {member.membership_type} = ?", city, t)
	}},
	{"library/loans_in_month", Simple, func(q *candidate) {
		ym := q.Month("loan.loan_date")
		q.Ask([]string{"How many loans were made in {month}?", "Count the loans whose loan date falls in {month}.", "What is the number of book loans recorded in {month}?"}, "month", monthName(ym))
		q.Ev("in "+monthName(ym)+" refers to strftime('%Y-%m', {loan.loan_date}) = ?", ym)
		q.SQL("SELECT COUNT(*) FROM {loan} WHERE strftime('%Y-%m', {loan.loan_date}) = ?", ym)
	}},
	{"library/unreturned", Simple, func(q *candidate) {
		year := q.Year("loan.loan_date")
		q.Ask([]string{"How many loans made in {year} have not been returned yet?", "Count the loans from {year} whose book is still not returned.", "What is the number of {year} loans with no return date?"}, "year", year)
		q.Ev("not been returned refers to {loan.return_date} IS NULL; made in "+year+" refers to strftime('%Y', {loan.loan_date}) = ?", year)
		q.SQL("SELECT COUNT(*) FROM {loan} WHERE strftime('%Y', {loan.loan_date}) = ? AND {loan.return_date} IS NULL", year)
	}},
	{"library/author_lookup", Simple, func(q *candidate) {
		first, last, full := q.Person("author")
		if q.Coin() {
			q.Ask([]string{"Which country is the author {name} from?", "What is the country of the author {name}?", "Give the country of {name}, an author."}, "name", full)
			q.SQL("SELECT {author.country} FROM {author} WHERE {author.first_name} = ? AND {author.last_name} = ?", first, last)
		} else {
			q.Ask([]string{"In which year was the author {name} born?", "What is the birth year of the author {name}?", "Give the year of birth of {name}, an author."}, "name", full)
			q.SQL("SELECT {author.birth_year} FROM {author} WHERE {author.first_name} = ? AND {author.last_name} = ?", first, last)
		}
		q.One()
	}},
	{"library/max_fine_year", Simple, func(q *candidate) {
		year := q.Year("loan.loan_date")
		if q.Coin() {
			q.Ask([]string{"What was the highest fine charged on a loan made in {year}?", "Give the largest late fine of any loan from {year}.", "How much was the biggest fine on a {year} loan?"}, "year", year)
			q.SQL("SELECT MAX({loan.fine_amount}) FROM {loan} WHERE strftime('%Y', {loan.loan_date}) = ?", year)
		} else {
			q.Ask([]string{"What was the total amount of fines charged on loans made in {year}?", "Sum the late fines of all loans from {year}.", "How much was charged in fines in total for {year} loans?"}, "year", year)
			q.SQL("SELECT SUM({loan.fine_amount}) FROM {loan} WHERE strftime('%Y', {loan.loan_date}) = ?", year)
		}
		q.Ev("made in "+year+" refers to strftime('%Y', {loan.loan_date}) = ?", year)
	}},
	{"library/authors_born", Simple, func(q *candidate) {
		country := q.Distinct("author.country")
		year := 1900 + 10*q.Intn(10)
		q.Ask([]string{"How many authors from {c} were born before {year}?", "Count the authors whose country is {c} and whose birth year is earlier than {year}.", "What is the number of authors born before {year} who come from {c}?"}, "c", withThe(country), "year", itoa(year))
		q.SQL("SELECT COUNT(*) FROM {author} WHERE {author.country} = ? AND {author.birth_year} < ?", country, year)
	}},

	{"library/books_by_author", Moderate, func(q *candidate) {
		first, last, full := q.Person("author")
		if q.Coin() {
			q.Ask([]string{"How many books by {name} does the library have?", "Count the books written by {name}.", "What is the number of books whose author is {name}?"}, "name", full)
			q.SQL("SELECT COUNT(T2.{book.book_id}) FROM {author} AS T1 INNER JOIN {book} AS T2 ON T1.{author.author_id} = T2.{book.author_id} WHERE T1.{author.first_name} = ? AND T1.{author.last_name} = ?", first, last)
		} else {
			q.Ask([]string{"What is the average page count of the books written by {name}?", "On average, how many pages do {name}'s books have?", "Calculate the mean number of pages of the books by {name}."}, "name", full)
			q.SQL("SELECT AVG(T2.{book.page_count}) FROM {author} AS T1 INNER JOIN {book} AS T2 ON T1.{author.author_id} = T2.{book.author_id} WHERE T1.{author.first_name} = ? AND T1.{author.last_name} = ?", first, last)
		}
	}},
	{"library/loans_of_member", Moderate, func(q *candidate) {
		first, last, full := q.Person("member")
		year := q.Year("loan.loan_date")
		q.Ask([]string{"How many loans did {name} make in {year}?", "Count the books {name} borrowed in {year}, one per loan.", "What is the number of loans by the member {name} in {year}?"}, "name", full, "year", year)
		q.Ev("in "+year+" refers to strftime('%Y', {loan.loan_date}) = ?", year)
		q.SQL("SELECT COUNT(T2.{loan.loan_id}) FROM {member} AS T1 INNER JOIN {loan} AS T2 ON T1.{member.member_id} = T2.{loan.member_id} WHERE T1.{member.first_name} = ? AND T1.{member.last_name} = ? AND strftime('%Y', T2.{loan.loan_date}) = ?", first, last, year)
	}},
	{"library/author_of_book", Moderate, func(q *candidate) {
		title := q.Unique("book.title")
		q.Ask([]string{"Who wrote {t}? Give the author's first and last name.", "Give the first and last name of the author of {t}.", "Which author wrote the book {t}? List the first and last name."}, "t", "\""+title+"\"")
		q.SQL("SELECT T1.{author.first_name}, T1.{author.last_name} FROM {author} AS T1 INNER JOIN {book} AS T2 ON T1.{author.author_id} = T2.{book.author_id} WHERE T2.{book.title} = ?", title)
		q.One()
	}},
	{"library/popular_genre", Moderate, func(q *candidate) {
		year := q.Year("loan.loan_date")
		most := q.Coin()
		if most {
			q.Ask([]string{"Which genre was borrowed the most in {year}?", "In {year}, books of which genre had the most loans?", "Name the genre with the highest number of loans in {year}."}, "year", year)
		} else {
			q.Ask([]string{"Which genre was borrowed the least in {year}?", "In {year}, books of which genre had the fewest loans?", "Name the genre with the lowest number of loans in {year}."}, "year", year)
		}
		q.Ev("in "+year+" refers to strftime('%Y', {loan.loan_date}) = ?", year)
		q.Top("T2.{book.genre}", "FROM {loan} AS T1 INNER JOIN {book} AS T2 ON T1.{loan.book_id} = T2.{book.book_id} WHERE strftime('%Y', T1.{loan.loan_date}) = ? GROUP BY T2.{book.genre}", "COUNT(T1.{loan.loan_id})", most, year)
	}},
	{"library/popular_books", Moderate, func(q *candidate) {
		year := q.Year("loan.loan_date")
		counts := q.All("SELECT COUNT(*) AS n FROM {loan} WHERE strftime('%Y', {loan.loan_date}) = ? GROUP BY {loan.book_id} ORDER BY n DESC LIMIT 25", year)
		if len(counts) < 5 {
			q.Skip()
			return
		}
		k := counts[2+q.Intn(len(counts)-2)].I(0)
		q.Ask([]string{"List the titles of the books borrowed more than {k} times in {year}.", "Which books were loaned out more than {k} times in {year}? Give their titles.", "Give the title of every book with more than {k} loans in {year}."}, "k", itoa(int(k)), "year", year)
		q.Ev("in "+year+" refers to strftime('%Y', {loan.loan_date}) = ?", year)
		q.SQL("SELECT T2.{book.title} FROM {loan} AS T1 INNER JOIN {book} AS T2 ON T1.{loan.book_id} = T2.{book.book_id} WHERE strftime('%Y', T1.{loan.loan_date}) = ? GROUP BY T2.{book.book_id} HAVING COUNT(T1.{loan.loan_id}) > ?", year, k)
	}},
	{"library/years_of_author", Moderate, func(q *candidate) {
		first, last, full := q.Person("author")
		q.Ask([]string{"In which years did {name} publish books? List each year once.", "List the distinct publication years of the books by {name}.", "Which different years saw a book by {name} published?"}, "name", full)
		q.SQL("SELECT DISTINCT T2.{book.publication_year} FROM {author} AS T1 INNER JOIN {book} AS T2 ON T1.{author.author_id} = T2.{book.author_id} WHERE T1.{author.first_name} = ? AND T1.{author.last_name} = ?", first, last)
	}},
	{"library/ontime_minus_late", Moderate, func(q *candidate) {
		ym := q.Month("loan.loan_date")
		q.Ask([]string{"Among loans made in {month}, how many more were returned on time than late?", "For {month} loans, what is the number returned on time minus the number returned late?", "How many more {month} loans came back on time than after their due date?"}, "month", monthName(ym))
		q.Ev("on time refers to {loan.return_date} <= {loan.due_date}; late refers to {loan.return_date} > {loan.due_date}; in "+monthName(ym)+" refers to strftime('%Y-%m', {loan.loan_date}) = ?", ym)
		q.SQL("SELECT SUM(CASE WHEN {loan.return_date} <= {loan.due_date} THEN 1 ELSE 0 END) - SUM(CASE WHEN {loan.return_date} > {loan.due_date} THEN 1 ELSE 0 END) FROM {loan} WHERE strftime('%Y-%m', {loan.loan_date}) = ?", ym)
	}},
	{"library/fines_of_member", Moderate, func(q *candidate) {
		first, last, full := q.Person("member")
		q.Ask([]string{"How much has {name} been charged in fines in total?", "What is the total of the late fines of the member {name}?", "Sum all fines charged to {name} for late returns."}, "name", full)
		q.SQL("SELECT SUM(T2.{loan.fine_amount}) FROM {member} AS T1 INNER JOIN {loan} AS T2 ON T1.{member.member_id} = T2.{loan.member_id} WHERE T1.{member.first_name} = ? AND T1.{member.last_name} = ?", first, last)
	}},

	{"library/pct_late_genre", Challenging, func(q *candidate) {
		genre := q.Distinct("book.genre")
		year := q.Year("loan.loan_date")
		q.Ask([]string{"What percentage of the loans of {genre} books made in {year} were returned late?", "Among {year} loans of {genre} books, what percent came back after the due date?", "Calculate the percentage of late returns among loans of {genre} books in {year}."}, "genre", genre, "year", year)
		q.Ev("late refers to {loan.return_date} > {loan.due_date}; percentage = DIVIDE(SUM({loan.return_date} > {loan.due_date}), COUNT({loan.loan_id})) * 100; in "+year+" refers to strftime('%Y', {loan.loan_date}) = ?", year)
		q.SQL("SELECT CAST(SUM(CASE WHEN T1.{loan.return_date} > T1.{loan.due_date} THEN 1 ELSE 0 END) AS REAL) * 100 / COUNT(T1.{loan.loan_id}) FROM {loan} AS T1 INNER JOIN {book} AS T2 ON T1.{loan.book_id} = T2.{book.book_id} WHERE T2.{book.genre} = ? AND strftime('%Y', T1.{loan.loan_date}) = ?", genre, year)
	}},
	{"library/top_borrower_genre", Challenging, func(q *candidate) {
		genre := q.Distinct("book.genre")
		year := q.Year("loan.loan_date")
		q.Ask([]string{"Which member made the most loans of {genre} books in {year}? Give the first and last name.", "Who had the most loans of {genre} books in {year}? List the member's first and last name.", "Give the first and last name of the member with the highest number of {genre} loans in {year}."}, "genre", genre, "year", year)
		q.Ev("the most loans refers to MAX(COUNT({loan.loan_id})); in "+year+" refers to strftime('%Y', {loan.loan_date}) = ?", year)
		q.Top("T1.{member.first_name}, T1.{member.last_name}", "FROM {member} AS T1 INNER JOIN {loan} AS T2 ON T1.{member.member_id} = T2.{loan.member_id} INNER JOIN {book} AS T3 ON T2.{loan.book_id} = T3.{book.book_id} WHERE T3.{book.genre} = ? AND strftime('%Y', T2.{loan.loan_date}) = ? GROUP BY T1.{member.member_id}", "COUNT(T2.{loan.loan_id})", true, genre, year)
	}},
	{"library/loans_author_country", Challenging, func(q *candidate) {
		country := q.Distinct("author.country")
		year := q.Year("loan.loan_date")
		q.Ask([]string{"How many loans in {year} were of books by authors from {c}?", "Count the {year} loans of books written by authors whose country is {c}.", "In {year}, how many times were books by authors from {c} borrowed?"}, "c", withThe(country), "year", year)
		q.Ev("in "+year+" refers to strftime('%Y', {loan.loan_date}) = ?", year)
		q.SQL("SELECT COUNT(T1.{loan.loan_id}) FROM {loan} AS T1 INNER JOIN {book} AS T2 ON T1.{loan.book_id} = T2.{book.book_id} INNER JOIN {author} AS T3 ON T2.{book.author_id} = T3.{author.author_id} WHERE T3.{author.country} = ? AND strftime('%Y', T1.{loan.loan_date}) = ?", country, year)
	}},
	{"library/above_avg_pages", Challenging, func(q *candidate) {
		genre := q.Distinct("book.genre")
		first, last, full := q.Person("author")
		if q.Coin() {
			q.Ask([]string{"How many {genre} books are longer than the average page count of all books?", "Count the {genre} books with more pages than the average book in the library.", "What is the number of books in the {genre} genre whose page count exceeds the overall average?"}, "genre", genre)
			q.SQL("SELECT COUNT(*) FROM {book} WHERE {book.genre} = ? AND {book.page_count} > (SELECT AVG({book.page_count}) FROM {book})", genre)
		} else {
			q.Ask([]string{"List the titles of the books by {name} that are longer than the average {genre} book.", "Which books written by {name} have more pages than the average book in the {genre} genre? Give their titles.", "Give the title of each book by {name} whose page count is above the average page count of {genre} books."}, "name", full, "genre", genre)
			q.SQL("SELECT T2.{book.title} FROM {author} AS T1 INNER JOIN {book} AS T2 ON T1.{author.author_id} = T2.{book.author_id} WHERE T1.{author.first_name} = ? AND T1.{author.last_name} = ? AND T2.{book.page_count} > (SELECT AVG({book.page_count}) FROM {book} WHERE {book.genre} = ?)", first, last, genre)
		}
	}},
	{"library/genres_of_member", Challenging, func(q *candidate) {
		first, last, full := q.Person("member")
		q.Ask([]string{"Which distinct genres has {name} borrowed?", "List each genre of the books the member {name} has borrowed, once.", "What different genres of books has {name} taken out on loan?"}, "name", full)
		q.SQL("SELECT DISTINCT T3.{book.genre} FROM {member} AS T1 INNER JOIN {loan} AS T2 ON T1.{member.member_id} = T2.{loan.member_id} INNER JOIN {book} AS T3 ON T2.{loan.book_id} = T3.{book.book_id} WHERE T1.{member.first_name} = ? AND T1.{member.last_name} = ?", first, last)
	}},
	{"library/type_ratio", Challenging, func(q *candidate) {
		t1 := q.Choose("standard", "student")
		t2 := q.Choose("senior", "premium")
		year := q.Year("loan.loan_date")
		q.Ask([]string{"In {year}, how many times more loans were made by {t1} members than by {t2} members?", "What is the ratio of loans by {t1} members to loans by {t2} members in {year}?", "Divide the number of {year} loans made by {t1} members by the number made by {t2} members."}, "t1", t1, "t2", t2, "year", year)
		q.Ev("ratio = DIVIDE(SUM({member.membership_type} = ?), SUM({member.membership_type} = ?)); in "+year+" refers to strftime('%Y', {loan.loan_date}) = ?", t1, t2, year)
		q.SQL("SELECT CAST(SUM(CASE WHEN T1.{member.membership_type} = ? THEN 1 ELSE 0 END) AS REAL) / SUM(CASE WHEN T1.{member.membership_type} = ? THEN 1 ELSE 0 END) FROM {member} AS T1 INNER JOIN {loan} AS T2 ON T1.{member.member_id} = T2.{loan.member_id} WHERE strftime('%Y', T2.{loan.loan_date}) = ?", t1, t2, year)
	}},
}
