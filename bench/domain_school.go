package bench

import (
	"fmt"
	"math/rand/v2"
)

// School: a university's departments, instructors, courses, students and
// enrolments with scores and letter grades.

type subject struct {
	dept, prefix string
	topics       []string
}

var subjects = []subject{
	{"Computer Science", "CS", []string{"Programming Fundamentals", "Data Structures", "Algorithms", "Operating Systems", "Database Systems", "Computer Networks", "Machine Learning", "Compilers", "Computer Graphics", "Software Engineering"}},
	{"Mathematics", "MATH", []string{"Calculus", "Linear Algebra", "Probability", "Real Analysis", "Number Theory", "Differential Equations", "Topology", "Statistics", "Discrete Mathematics", "Numerical Methods"}},
	{"Physics", "PHYS", []string{"Mechanics", "Electromagnetism", "Quantum Physics", "Thermodynamics", "Optics", "Astrophysics", "Relativity", "Solid State Physics", "Nuclear Physics"}},
	{"Chemistry", "CHEM", []string{"General Chemistry", "Organic Chemistry", "Physical Chemistry", "Biochemistry", "Analytical Chemistry", "Inorganic Chemistry", "Polymer Chemistry", "Spectroscopy"}},
	{"Biology", "BIO", []string{"Cell Biology", "Genetics", "Ecology", "Microbiology", "Evolution", "Neuroscience", "Marine Biology", "Botany", "Immunology"}},
	{"History", "HIST", []string{"Ancient Rome", "Medieval Europe", "The Renaissance", "Modern China", "The Cold War", "American Revolution", "World War II", "History of Science", "Colonial Latin America"}},
	{"English", "ENGL", []string{"Creative Writing", "Shakespeare", "Victorian Literature", "Modern Poetry", "American Novel", "Literary Theory", "Rhetoric", "World Literature"}},
	{"Economics", "ECON", []string{"Microeconomics", "Macroeconomics", "Econometrics", "Game Theory", "Labor Economics", "Public Finance", "International Trade", "Development Economics"}},
	{"Psychology", "PSYC", []string{"Cognitive Psychology", "Social Psychology", "Developmental Psychology", "Abnormal Psychology", "Research Methods", "Personality", "Behavioral Neuroscience"}},
	{"Philosophy", "PHIL", []string{"Logic", "Ethics", "Metaphysics", "Epistemology", "Philosophy of Mind", "Political Philosophy", "Ancient Philosophy", "Aesthetics"}},
	{"Music", "MUSC", []string{"Music Theory", "Ear Training", "Orchestration", "Jazz Improvisation", "Music History", "Composition", "Conducting"}},
	{"Sociology", "SOCI", []string{"Social Theory", "Urban Sociology", "Sociology of Religion", "Social Stratification", "Criminology", "Sociology of Health", "Migration Studies"}},
}

var buildings = []string{"Turing Hall", "Newton Hall", "Curie Building", "Darwin Hall", "Main Hall", "Franklin Hall", "Hopper Center", "Austen Hall", "Lovelace Building", "Humboldt Hall", "Noether Hall", "Galileo Building"}

var academicRanks = []string{"Lecturer", "Assistant Professor", "Associate Professor", "Professor"}

var terms = []string{"Fall 2021", "Spring 2022", "Fall 2022", "Spring 2023", "Fall 2023", "Spring 2024"}

func schoolDomain() *domain {
	return &domain{
		name: "school", devName: "campus",
		title:    "a university: departments, instructors with ranks and salaries, courses, students, and enrolments with scores and letter grades",
		tables:   schoolTables,
		populate: populateSchool,
		families: schoolFamilies,
	}
}

var schoolTables = []table{
	{name: "department", dev: "faculty", pk: []string{"department_id"}, cols: []column{
		{name: "department_id", dev: "faculty_id", typ: "integer", desc: "unique id of the department"},
		{name: "department_name", dev: "faculty_name", typ: "text", desc: "name of the department"},
		{name: "building", dev: "building_name", typ: "text", desc: "building that houses the department"},
		{name: "annual_budget", dev: "budget_usd", typ: "real", desc: "the department's yearly budget in US dollars"},
	}},
	{name: "instructor", dev: "lecturer", pk: []string{"instructor_id"}, cols: []column{
		{name: "instructor_id", dev: "lecturer_id", typ: "integer", desc: "unique id of the instructor"},
		{name: "first_name", dev: "given_name", typ: "text", desc: "the instructor's first name"},
		{name: "last_name", dev: "surname", typ: "text", desc: "the instructor's last name"},
		{name: "department_id", dev: "faculty_id", typ: "integer", desc: "department the instructor belongs to", ref: "department.department_id"},
		{name: "academic_rank", dev: "position_title", typ: "text", desc: "academic rank", values: "'Lecturer', 'Assistant Professor', 'Associate Professor' or 'Professor' (a full professor)"},
		{name: "hire_date", dev: "appointed_on", typ: "date", desc: "date the instructor was hired", values: "YYYY-MM-DD"},
		{name: "salary", dev: "annual_salary", typ: "real", desc: "yearly salary in US dollars"},
	}},
	{name: "course", dev: "module", pk: []string{"course_id"}, cols: []column{
		{name: "course_id", dev: "module_id", typ: "integer", desc: "unique id of the course"},
		{name: "course_code", dev: "module_code", typ: "text", desc: "catalogue code", values: "subject prefix and number, e.g. 'CS 201'; the number's first digit is the year level"},
		{name: "title", dev: "module_title", typ: "text", desc: "title of the course"},
		{name: "department_id", dev: "faculty_id", typ: "integer", desc: "department offering the course", ref: "department.department_id"},
		{name: "instructor_id", dev: "lecturer_id", typ: "integer", desc: "instructor who teaches the course", ref: "instructor.instructor_id"},
		{name: "credits", dev: "credit_points", typ: "integer", desc: "credit hours the course is worth"},
	}},
	{name: "student", dev: "learner", pk: []string{"student_id"}, cols: []column{
		{name: "student_id", dev: "learner_id", typ: "integer", desc: "unique id of the student"},
		{name: "first_name", dev: "given_name", typ: "text", desc: "the student's first name"},
		{name: "last_name", dev: "surname", typ: "text", desc: "the student's last name"},
		{name: "gender", dev: "sex", typ: "text", desc: "the student's gender", values: "'F' = female, 'M' = male"},
		{name: "birth_date", dev: "date_of_birth", typ: "date", desc: "the student's date of birth", values: "YYYY-MM-DD"},
		{name: "enrollment_year", dev: "entry_year", typ: "integer", desc: "year the student enrolled at the university"},
		{name: "home_city", dev: "hometown", typ: "text", desc: "city the student comes from"},
	}},
	{name: "enrollment", dev: "registration", pk: []string{"enrollment_id"}, cols: []column{
		{name: "enrollment_id", dev: "registration_id", typ: "integer", desc: "unique id of the enrolment"},
		{name: "student_id", dev: "learner_id", typ: "integer", desc: "the enrolled student", ref: "student.student_id"},
		{name: "course_id", dev: "module_id", typ: "integer", desc: "the course taken", ref: "course.course_id"},
		{name: "term", dev: "session_term", typ: "text", desc: "academic term", values: "'Fall YYYY' or 'Spring YYYY'"},
		{name: "score", dev: "mark", typ: "integer", desc: "final score out of 100"},
		{name: "grade", dev: "letter_grade", typ: "text", desc: "letter grade", values: "'A' (score >= 90), 'B' (>= 80), 'C' (>= 70), 'D' (>= 60) or 'F' (fail, below 60)"},
	}},
}

func letterGrade(score int) string {
	switch {
	case score >= 90:
		return "A"
	case score >= 80:
		return "B"
	case score >= 70:
		return "C"
	case score >= 60:
		return "D"
	}
	return "F"
}

func populateSchool(b *builder, r *rand.Rand) {
	last := newSkewed(r, lastNames, 0.6)
	subs := subset(r, subjects, 10)
	blds := subset(r, buildings, len(subs))
	type inst struct{ dept int }
	var insts []inst
	for d, s := range subs {
		b.add("department", d+1, s.dept, blds[d], cents(nice(uniform(r, 0.8e6, 6e6))))
	}
	nInst := b.count(100, 30)
	for i := range nInst {
		d := i % len(subs)
		if i >= len(subs) {
			d = r.IntN(len(subs))
		}
		p := newPerson(r, last)
		rk := pickWeighted(r, []float64{20, 30, 25, 25})
		base := []float64{62000, 78000, 95000, 128000}[rk]
		hired := dateBetween(r, day(1990+5*rk, 1, 1), day(2023, 8, 31))
		b.add("instructor", i+1, p.first, p.last, d+1, academicRanks[rk], fmtDate(hired), cents(normal(r, base, base*0.12, base*0.7, base*1.5)))
		insts = append(insts, inst{dept: d})
	}
	byDept := make([][]int, len(subs))
	for i, in := range insts {
		byDept[in.dept] = append(byDept[in.dept], i)
	}
	type course struct{ level int }
	var courses []course
	seen := map[string]bool{}
	nCourse := b.count(120, 40)
	for tries := 0; len(courses) < nCourse && tries < nCourse*20; tries++ {
		d := r.IntN(len(subs))
		s := subs[d]
		title := pick(r, s.topics)
		level := 1 + r.IntN(4)
		switch r.IntN(4) {
		case 1:
			title = "Advanced " + title
			level = 3 + r.IntN(2)
		case 2:
			title = "Topics in " + title
			level = 4
		case 3:
			title = "Introduction to " + title
			level = 1
		}
		if seen[title] {
			continue
		}
		seen[title] = true
		code := fmt.Sprintf("%s %d%02d", s.prefix, level, 1+r.IntN(99))
		if seen[code] {
			continue
		}
		seen[code] = true
		teacher := byDept[d][r.IntN(len(byDept[d]))]
		credits := []int{2, 3, 3, 3, 4, 4, 5}[r.IntN(7)]
		courses = append(courses, course{level: level})
		b.add("course", len(courses), code, title, d+1, teacher+1, credits)
	}
	cities := newSkewed(r, usCities, 0.8)
	nStud := b.count(2000, 80)
	courseW := newWeighted(len(courses), 0.4)
	courseOrder := shuffled(r, seq(len(courses)))
	enr := 0
	for s := range nStud {
		p := newPerson(r, last)
		year := 2019 + r.IntN(5)
		born := dateBetween(r, day(year-20, 1, 1), day(year-17, 12, 31))
		b.add("student", s+1, p.first, p.last, p.gender, fmtDate(born), year, cities.draw(r).name)
		ability := normal(r, 77, 9, 45, 97)
		n := 2 + r.IntN(9)
		taken := map[int]bool{}
		for range n {
			c := courseOrder[courseW.draw(r)]
			if taken[c] {
				continue
			}
			taken[c] = true
			first := 0
			for first < len(terms) && termYear(terms[first]) < year {
				first++
			}
			if first >= len(terms) {
				first = len(terms) - 1
			}
			term := terms[first+r.IntN(len(terms)-first)]
			score := int(normal(r, ability-2*float64(courses[c].level-2), 10, 20, 100))
			enr++
			b.add("enrollment", enr, s+1, c+1, term, score, letterGrade(score))
		}
	}
}

func termYear(t string) int {
	var y int
	fmt.Sscanf(t[len(t)-4:], "%d", &y)
	return y
}

var genderWord = map[string]string{"F": "female", "M": "male"}

var schoolFamilies = []family{
	{"school/students_city_year", Simple, func(q *candidate) {
		city := q.Distinct("student.home_city")
		year := q.DistinctInt("student.enrollment_year")
		q.Ask([]string{"How many students from {city} started at the university in {year}?", "Count the students whose home city is {city} and whose university enrollment year is {year}.", "What is the number of students from {city} with an enrollment year of {year}?"}, "city", city, "year", itoa(int(year)))
		q.Ev("enrollment year refers to {student.enrollment_year}")
		q.SQL("SELECT COUNT(*) FROM {student} WHERE {student.home_city} = ? AND {student.enrollment_year} = ?", city, year)
	}},
	{"school/gender_year", Simple, func(q *candidate) {
		g := q.Choose("F", "M")
		year := q.DistinctInt("student.enrollment_year")
		q.Ask([]string{"How many {g} students started at the university in {year}?", "Count the {g} students who started at the university in {year}.", "What is the number of {g} students with an enrollment year of {year}?"}, "g", genderWord[g], "year", itoa(int(year)))
		q.Ev(genderWord[g]+" refers to {student.gender} = ?", g)
		q.SQL("SELECT COUNT(*) FROM {student} WHERE {student.gender} = ? AND {student.enrollment_year} = ?", g, year)
	}},
	{"school/instructor_salary", Simple, func(q *candidate) {
		first, last, full := q.Person("instructor")
		q.Ask([]string{"What is the salary of the instructor {name}?", "How much does instructor {name} earn per year?", "Give the annual salary of {name}, who is an instructor."}, "name", full)
		q.SQL("SELECT {instructor.salary} FROM {instructor} WHERE {instructor.first_name} = ? AND {instructor.last_name} = ?", first, last)
		q.One()
	}},
	{"school/credits_prefix", Simple, func(q *candidate) {
		r := q.Pick("SELECT substr({course.course_code}, 1, instr({course.course_code}, ' ') - 1), {course.credits} FROM {course} ORDER BY 1, 2")
		prefix, credits := r.S(0), r.I(1)
		q.Ask([]string{"How many courses with a code starting with '{p}' are worth {c} credits?", "Count the '{p}' courses that carry {c} credits.", "What is the number of courses whose code begins with '{p}' and that are worth {c} credits?"}, "p", prefix, "c", itoa(int(credits)))
		q.Ev("a code starting with '"+prefix+"' refers to {course.course_code} LIKE ?", prefix+" %")
		q.SQL("SELECT COUNT(*) FROM {course} WHERE {course.course_code} LIKE ? AND {course.credits} = ?", prefix+" %", credits)
	}},
	{"school/top_paid_rank", Simple, func(q *candidate) {
		rank := q.Distinct("instructor.academic_rank")
		desc := q.Coin()
		if desc {
			q.Ask([]string{"Which instructor with the rank of {rank} has the highest salary? Give the first and last name.", "Among instructors ranked {rank}, who earns the most? List the first and last name.", "Give the first and last name of the best-paid {rank}."}, "rank", rank)
		} else {
			q.Ask([]string{"Which instructor with the rank of {rank} has the lowest salary? Give the first and last name.", "Among instructors ranked {rank}, who earns the least? List the first and last name.", "Give the first and last name of the lowest-paid {rank}."}, "rank", rank)
		}
		q.Top("{instructor.first_name}, {instructor.last_name}", "FROM {instructor} WHERE {instructor.academic_rank} = ?", "{instructor.salary}", desc, rank)
	}},
	{"school/first_hired_rank", Simple, func(q *candidate) {
		rank := q.Distinct("instructor.academic_rank")
		q.Ask([]string{"Among instructors with the rank of {rank}, who was hired first? Give the first and last name.", "Which {rank} has been with the university the longest? List the first and last name.", "Give the first and last name of the {rank} with the earliest hire date."}, "rank", rank)
		q.Ev("hired first refers to MIN({instructor.hire_date})")
		q.Top("{instructor.first_name}, {instructor.last_name}", "FROM {instructor} WHERE {instructor.academic_rank} = ?", "{instructor.hire_date}", false, rank)
	}},
	{"school/high_scores_term", Simple, func(q *candidate) {
		term := q.Distinct("enrollment.term")
		n := []int{85, 90, 95, 98}[q.Intn(4)]
		q.Ask([]string{"How many enrollments in {term} received a score of {n} or higher?", "In {term}, how many course enrollments ended with a score of at least {n}?", "Count the {term} enrollments with a score of {n} or more."}, "term", term, "n", itoa(n))
		q.SQL("SELECT COUNT(*) FROM {enrollment} WHERE {enrollment.term} = ? AND {enrollment.score} >= ?", term, n)
	}},
	{"school/course_title", Simple, func(q *candidate) {
		code := q.Unique("course.course_code")
		if q.Coin() {
			q.Ask([]string{"What is the title of the course {code}?", "Give the title of course {code}.", "Which course has the code {code}? Give its title."}, "code", code)
			q.SQL("SELECT {course.title} FROM {course} WHERE {course.course_code} = ?", code)
		} else {
			q.Ask([]string{"How many credits is the course {code} worth?", "What is the credit value of course {code}?", "Give the number of credits of course {code}."}, "code", code)
			q.SQL("SELECT {course.credits} FROM {course} WHERE {course.course_code} = ?", code)
		}
		q.One()
	}},
	{"school/born_city", Simple, func(q *candidate) {
		city := q.Distinct("student.home_city")
		year := q.Year("student.birth_date")
		q.Ask([]string{"How many students from {city} were born in {year}?", "Count the students born in {year} whose home city is {city}.", "What is the number of students from {city} with a birth year of {year}?"}, "city", city, "year", year)
		q.Ev("born in "+year+" refers to strftime('%Y', {student.birth_date}) = ?", year)
		q.SQL("SELECT COUNT(*) FROM {student} WHERE {student.home_city} = ? AND strftime('%Y', {student.birth_date}) = ?", city, year)
	}},
	{"school/avg_score_term_grade", Simple, func(q *candidate) {
		term := q.Distinct("enrollment.term")
		if q.Coin() {
			q.Ask([]string{"What was the average score across all enrollments in {term}?", "Calculate the average score of the {term} enrollments.", "On average, what score did enrollments in {term} receive?"}, "term", term)
			q.SQL("SELECT AVG({enrollment.score}) FROM {enrollment} WHERE {enrollment.term} = ?", term)
		} else {
			grade := q.Choose("A", "B", "C", "D", "F")
			q.Ask([]string{"How many grades of {g} were given in {term}?", "Count the enrollments in {term} that received the grade {g}.", "In {term}, how many enrollments ended with a grade of {g}?"}, "term", term, "g", grade)
			q.SQL("SELECT COUNT(*) FROM {enrollment} WHERE {enrollment.term} = ? AND {enrollment.grade} = ?", term, grade)
		}
	}},
	{"school/last_name_prefix", Simple, func(q *candidate) {
		name := q.Distinct("student.last_name")
		if len(name) < 3 {
			q.Skip()
			return
		}
		p := name[:2]
		if p[1] == '\'' {
			q.Skip()
			return
		}
		year := q.DistinctInt("student.enrollment_year")
		q.Ask([]string{"How many students who started at the university in {year} have a last name starting with '{p}'?", "Count the students of the {year} intake whose last name begins with '{p}'.", "What is the number of students with an enrollment year of {year} and a last name that starts with '{p}'?"}, "p", p, "year", itoa(int(year)))
		q.Ev("last name starting with '"+p+"' refers to {student.last_name} LIKE ?", p+"%")
		q.SQL("SELECT COUNT(*) FROM {student} WHERE {student.enrollment_year} = ? AND {student.last_name} LIKE ?", year, p+"%")
	}},

	{"school/courses_of_instructor", Moderate, func(q *candidate) {
		first, last, full := q.Person("instructor")
		if q.Coin() {
			q.Ask([]string{"How many courses does {name} teach?", "What is the number of courses taught by the instructor {name}?", "Count the courses whose instructor is {name}."}, "name", full)
			q.SQL("SELECT COUNT(T2.{course.course_id}) FROM {instructor} AS T1 INNER JOIN {course} AS T2 ON T1.{instructor.instructor_id} = T2.{course.instructor_id} WHERE T1.{instructor.first_name} = ? AND T1.{instructor.last_name} = ?", first, last)
		} else {
			q.Ask([]string{"List the titles of the courses taught by {name}.", "Which courses does the instructor {name} teach? Give their titles.", "Give the title of every course taught by {name}."}, "name", full)
			q.SQL("SELECT T2.{course.title} FROM {instructor} AS T1 INNER JOIN {course} AS T2 ON T1.{instructor.instructor_id} = T2.{course.instructor_id} WHERE T1.{instructor.first_name} = ? AND T1.{instructor.last_name} = ?", first, last)
		}
	}},
	{"school/department_of_instructor", Moderate, func(q *candidate) {
		first, last, full := q.Person("instructor")
		q.Ask([]string{"Which department does the instructor {name} belong to?", "Name the department of instructor {name}.", "In which department does {name} teach? Give the department name."}, "name", full)
		q.SQL("SELECT T2.{department.department_name} FROM {instructor} AS T1 INNER JOIN {department} AS T2 ON T1.{instructor.department_id} = T2.{department.department_id} WHERE T1.{instructor.first_name} = ? AND T1.{instructor.last_name} = ?", first, last)
		q.One()
	}},
	{"school/dept_top_salary_rank", Moderate, func(q *candidate) {
		rank := q.Distinct("instructor.academic_rank")
		q.Ask([]string{"Among instructors with the rank of {rank}, which department has the highest average salary?", "Which department pays its {rank} instructors the most on average? Give the department name.", "Name the department whose instructors ranked {rank} have the highest average salary."}, "rank", rank)
		q.Top("T2.{department.department_name}", "FROM {instructor} AS T1 INNER JOIN {department} AS T2 ON T1.{instructor.department_id} = T2.{department.department_id} WHERE T1.{instructor.academic_rank} = ? GROUP BY T2.{department.department_id}", "AVG(T1.{instructor.salary})", true, rank)
	}},
	{"school/students_in_course_term", Moderate, func(q *candidate) {
		title := q.Unique("course.title")
		term := q.Distinct("enrollment.term")
		q.Ask([]string{"How many students took {title} in {term}?", "What is the number of students enrolled in {title} during {term}?", "Count the students who were enrolled in the course {title} in {term}."}, "title", title, "term", term)
		q.SQL("SELECT COUNT(T1.{enrollment.student_id}) FROM {enrollment} AS T1 INNER JOIN {course} AS T2 ON T1.{enrollment.course_id} = T2.{course.course_id} WHERE T2.{course.title} = ? AND T1.{enrollment.term} = ?", title, term)
	}},
	{"school/pass_minus_fail", Moderate, func(q *candidate) {
		title := q.Unique("course.title")
		q.Ask([]string{"For the course {title}, how many more enrollments passed than failed?", "In the course {title}, what is the number of passing enrollments minus the number of failing ones?", "How many more passes than fails has the course {title} recorded?"}, "title", title)
		q.Ev("passed refers to {enrollment.grade} <> 'F'; failed refers to {enrollment.grade} = 'F'")
		q.SQL("SELECT SUM(CASE WHEN T1.{enrollment.grade} <> 'F' THEN 1 ELSE 0 END) - SUM(CASE WHEN T1.{enrollment.grade} = 'F' THEN 1 ELSE 0 END) FROM {enrollment} AS T1 INNER JOIN {course} AS T2 ON T1.{enrollment.course_id} = T2.{course.course_id} WHERE T2.{course.title} = ?", title)
	}},
	{"school/popular_courses", Moderate, func(q *candidate) {
		term := q.Distinct("enrollment.term")
		counts := q.All("SELECT COUNT(*) AS n FROM {enrollment} WHERE {enrollment.term} = ? GROUP BY {enrollment.course_id} ORDER BY n DESC LIMIT 20", term)
		if len(counts) < 5 {
			q.Skip()
			return
		}
		k := counts[2+q.Intn(len(counts)-2)].I(0)
		q.Ask([]string{"List the titles of the courses with more than {k} enrollments in {term}.", "Which courses had more than {k} students enrolled in {term}? Give their titles.", "Give the title of each course that more than {k} students took in {term}."}, "k", itoa(int(k)), "term", term)
		q.SQL("SELECT T2.{course.title} FROM {enrollment} AS T1 INNER JOIN {course} AS T2 ON T1.{enrollment.course_id} = T2.{course.course_id} WHERE T1.{enrollment.term} = ? GROUP BY T2.{course.course_id} HAVING COUNT(T1.{enrollment.enrollment_id}) > ?", term, k)
	}},
	{"school/terms_of_student", Moderate, func(q *candidate) {
		first, last, full := q.Person("student")
		q.Ask([]string{"In which terms was the student {name} enrolled in a course? List each term once.", "List the distinct terms in which {name} took courses.", "Which different terms did the student {name} take classes in?"}, "name", full)
		q.SQL("SELECT DISTINCT T2.{enrollment.term} FROM {student} AS T1 INNER JOIN {enrollment} AS T2 ON T1.{student.student_id} = T2.{enrollment.student_id} WHERE T1.{student.first_name} = ? AND T1.{student.last_name} = ?", first, last)
	}},
	{"school/student_avg_score", Moderate, func(q *candidate) {
		first, last, full := q.Person("student")
		q.Ask([]string{"What is the average score of the student {name} across all enrollments?", "Calculate {name}'s average score over every course they took.", "On average, what score did the student {name} get in their courses?"}, "name", full)
		q.SQL("SELECT AVG(T2.{enrollment.score}) FROM {student} AS T1 INNER JOIN {enrollment} AS T2 ON T1.{student.student_id} = T2.{enrollment.student_id} WHERE T1.{student.first_name} = ? AND T1.{student.last_name} = ?", first, last)
	}},
	{"school/best_in_course", Challenging, func(q *candidate) {
		r := q.Pick("SELECT T2.{course.title}, T1.{enrollment.term} FROM {enrollment} AS T1 INNER JOIN {course} AS T2 ON T1.{enrollment.course_id} = T2.{course.course_id} GROUP BY T2.{course.course_id}, T1.{enrollment.term} HAVING COUNT(*) >= 3 ORDER BY 1, 2")
		title, term := r.S(0), r.S(1)
		q.Ask([]string{"Which student got the highest score in {title} in {term}? Give the first and last name.", "Who scored highest in the course {title} during {term}? List the student's first and last name.", "Give the first and last name of the top-scoring student of {title} in {term}."}, "title", title, "term", term)
		q.Top("T3.{student.first_name}, T3.{student.last_name}", "FROM {enrollment} AS T1 INNER JOIN {course} AS T2 ON T1.{enrollment.course_id} = T2.{course.course_id} INNER JOIN {student} AS T3 ON T1.{enrollment.student_id} = T3.{student.student_id} WHERE T2.{course.title} = ? AND T1.{enrollment.term} = ?", "T1.{enrollment.score}", true, title, term)
	}},

	{"school/pct_female_course", Challenging, func(q *candidate) {
		title := q.Unique("course.title")
		g := q.Choose("F", "M")
		q.Ask([]string{"What percentage of the enrollments in {title} are {g} students?", "Among all enrollments in the course {title}, what percent belong to {g} students?", "Calculate the percentage of {g} students among the enrollments of {title}."}, "title", title, "g", genderWord[g])
		q.Ev(genderWord[g]+" refers to {student.gender} = ?; percentage = DIVIDE(SUM({student.gender} = ?), COUNT({enrollment.enrollment_id})) * 100", g, g)
		q.SQL("SELECT CAST(SUM(CASE WHEN T1.{student.gender} = ? THEN 1 ELSE 0 END) AS REAL) * 100 / COUNT(T2.{enrollment.enrollment_id}) FROM {student} AS T1 INNER JOIN {enrollment} AS T2 ON T1.{student.student_id} = T2.{enrollment.student_id} INNER JOIN {course} AS T3 ON T2.{enrollment.course_id} = T3.{course.course_id} WHERE T3.{course.title} = ?", g, title)
	}},
	{"school/dept_avg_score_term", Challenging, func(q *candidate) {
		dept := q.Distinct("department.department_name")
		term := q.Distinct("enrollment.term")
		q.Ask([]string{"What was the average score of enrollments in courses offered by the {dept} department in {term}?", "In {term}, what average score did students get in {dept} department courses?", "Calculate the average enrollment score in {term} for courses of the {dept} department."}, "dept", dept, "term", term)
		q.SQL("SELECT AVG(T3.{enrollment.score}) FROM {department} AS T1 INNER JOIN {course} AS T2 ON T1.{department.department_id} = T2.{course.department_id} INNER JOIN {enrollment} AS T3 ON T2.{course.course_id} = T3.{enrollment.course_id} WHERE T1.{department.department_name} = ? AND T3.{enrollment.term} = ?", dept, term)
	}},
	{"school/above_course_avg", Challenging, func(q *candidate) {
		r := q.Pick("SELECT T2.{course.title}, T1.{enrollment.term} FROM {enrollment} AS T1 INNER JOIN {course} AS T2 ON T1.{enrollment.course_id} = T2.{course.course_id} GROUP BY T2.{course.course_id}, T1.{enrollment.term} HAVING COUNT(*) BETWEEN 4 AND 40 ORDER BY 1, 2")
		title, term := r.S(0), r.S(1)
		q.Ask([]string{"List the first and last names of students whose score in {title} in {term} was above that course's average score for {term}.", "Which students scored above the {term} average in {title}? Give their first and last names.", "Give the first and last name of every student who beat the average score of {title} in {term}."}, "title", title, "term", term)
		q.SQL("SELECT T3.{student.first_name}, T3.{student.last_name} FROM {enrollment} AS T1 INNER JOIN {course} AS T2 ON T1.{enrollment.course_id} = T2.{course.course_id} INNER JOIN {student} AS T3 ON T1.{enrollment.student_id} = T3.{student.student_id} WHERE T2.{course.title} = ? AND T1.{enrollment.term} = ? AND T1.{enrollment.score} > (SELECT AVG(T4.{enrollment.score}) FROM {enrollment} AS T4 INNER JOIN {course} AS T5 ON T4.{enrollment.course_id} = T5.{course.course_id} WHERE T5.{course.title} = ? AND T4.{enrollment.term} = ?)", title, term, title, term)
	}},
	{"school/pass_rate_instructor", Challenging, func(q *candidate) {
		first, last, full := q.Person("instructor")
		q.Ask([]string{"What is the pass rate, as a percentage, of all enrollments in courses taught by {name}?", "Across the courses {name} teaches, what percentage of enrollments passed?", "Calculate the percentage of passing enrollments in the courses of instructor {name}."}, "name", full)
		q.Ev("pass rate = DIVIDE(SUM({enrollment.grade} <> 'F'), COUNT({enrollment.enrollment_id})) * 100")
		q.SQL("SELECT CAST(SUM(CASE WHEN T3.{enrollment.grade} <> 'F' THEN 1 ELSE 0 END) AS REAL) * 100 / COUNT(T3.{enrollment.enrollment_id}) FROM {instructor} AS T1 INNER JOIN {course} AS T2 ON T1.{instructor.instructor_id} = T2.{course.instructor_id} INNER JOIN {enrollment} AS T3 ON T2.{course.course_id} = T3.{enrollment.course_id} WHERE T1.{instructor.first_name} = ? AND T1.{instructor.last_name} = ?", first, last)
	}},
	{"school/best_instructor_dept", Challenging, func(q *candidate) {
		dept := q.Distinct("department.department_name")
		term := q.Distinct("enrollment.term")
		q.Ask([]string{"Which {dept} department instructor had the highest average score over all enrollments in their courses in {term}? Give the first and last name.", "Which instructor of the {dept} department had the highest average enrollment score in {term}, counting every enrollment in their courses? List the first and last name.", "Give the first and last name of the {dept} instructor whose course enrollments in {term} had the highest average score."}, "dept", dept, "term", term)
		q.Ev("average enrollment score = AVG({enrollment.score}) over all enrollments in the instructor's courses in the term")
		q.Top("T2.{instructor.first_name}, T2.{instructor.last_name}", "FROM {department} AS T1 INNER JOIN {instructor} AS T2 ON T1.{department.department_id} = T2.{instructor.department_id} INNER JOIN {course} AS T3 ON T2.{instructor.instructor_id} = T3.{course.instructor_id} INNER JOIN {enrollment} AS T4 ON T3.{course.course_id} = T4.{enrollment.course_id} WHERE T1.{department.department_name} = ? AND T4.{enrollment.term} = ? GROUP BY T2.{instructor.instructor_id}", "AVG(T4.{enrollment.score})", true, dept, term)
	}},
	{"school/above_dept_salary", Challenging, func(q *candidate) {
		dept := q.Distinct("department.department_name")
		q.Ask([]string{"How many instructors in the {dept} department earn more than the average salary of that department?", "Count the {dept} instructors whose salary is above the {dept} department's average salary.", "What is the number of instructors in {dept} paid more than their department's average?"}, "dept", dept)
		q.SQL("SELECT COUNT(*) FROM {instructor} AS T1 INNER JOIN {department} AS T2 ON T1.{instructor.department_id} = T2.{department.department_id} WHERE T2.{department.department_name} = ? AND T1.{instructor.salary} > (SELECT AVG(T3.{instructor.salary}) FROM {instructor} AS T3 INNER JOIN {department} AS T4 ON T3.{instructor.department_id} = T4.{department.department_id} WHERE T4.{department.department_name} = ?)", dept, dept)
	}},
	{"school/a_to_f_ratio", Challenging, func(q *candidate) {
		dept := q.Distinct("department.department_name")
		term := q.Distinct("enrollment.term")
		q.Ask([]string{"In {term}, how many times more A grades than F grades were given in {dept} department courses?", "What is the ratio of A grades to F grades in courses of the {dept} department in {term}?", "For {dept} department courses in {term}, divide the number of A grades by the number of F grades."}, "dept", dept, "term", term)
		q.Ev("ratio = DIVIDE(SUM({enrollment.grade} = 'A'), SUM({enrollment.grade} = 'F'))")
		q.SQL("SELECT CAST(SUM(CASE WHEN T3.{enrollment.grade} = 'A' THEN 1 ELSE 0 END) AS REAL) / SUM(CASE WHEN T3.{enrollment.grade} = 'F' THEN 1 ELSE 0 END) FROM {department} AS T1 INNER JOIN {course} AS T2 ON T1.{department.department_id} = T2.{course.department_id} INNER JOIN {enrollment} AS T3 ON T2.{course.course_id} = T3.{enrollment.course_id} WHERE T1.{department.department_name} = ? AND T3.{enrollment.term} = ?", dept, term)
	}},
}
