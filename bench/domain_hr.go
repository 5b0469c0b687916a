package bench

import (
	"math"
	"math/rand/v2"
	"strings"
)

// HR: a company's departments, jobs with salary bands, employees with
// managers, and yearly performance reviews.

type jobInfo struct {
	title    string
	lo, hi   float64
	deptKind string
}

var jobsPool = []jobInfo{
	{"Software Engineer", 85000, 150000, "Engineering"},
	{"Senior Software Engineer", 120000, 190000, "Engineering"},
	{"QA Analyst", 60000, 95000, "Engineering"},
	{"Data Scientist", 95000, 165000, "Research"},
	{"Research Scientist", 90000, 160000, "Research"},
	{"Sales Representative", 45000, 85000, "Sales"},
	{"Account Manager", 60000, 110000, "Sales"},
	{"Marketing Specialist", 50000, 90000, "Marketing"},
	{"Content Writer", 45000, 75000, "Marketing"},
	{"Financial Analyst", 65000, 110000, "Finance"},
	{"Accountant", 55000, 95000, "Finance"},
	{"HR Generalist", 50000, 85000, "Human Resources"},
	{"Recruiter", 48000, 82000, "Human Resources"},
	{"Legal Counsel", 110000, 200000, "Legal"},
	{"Paralegal", 50000, 80000, "Legal"},
	{"Support Agent", 38000, 60000, "Customer Support"},
	{"Support Team Lead", 55000, 80000, "Customer Support"},
	{"Operations Coordinator", 45000, 75000, "Operations"},
	{"Logistics Planner", 52000, 88000, "Operations"},
	{"IT Technician", 45000, 78000, "IT"},
	{"Systems Administrator", 70000, 120000, "IT"},
	{"Product Manager", 105000, 175000, "Product"},
	{"UX Designer", 75000, 130000, "Product"},
	{"Department Head", 140000, 240000, ""},
	{"Team Manager", 95000, 160000, ""},
}

var hrDepartments = []string{"Engineering", "Research", "Sales", "Marketing", "Finance", "Human Resources", "Legal", "Customer Support", "Operations", "IT", "Product"}

func hrDomain() *domain {
	return &domain{
		name: "hr", devName: "workforce",
		title:    "a company's people data: departments, jobs with salary bands, employees and their managers, and yearly performance reviews",
		tables:   hrTables,
		populate: populateHR,
		families: hrFamilies,
	}
}

var hrTables = []table{
	{name: "department", dev: "division", pk: []string{"department_id"}, cols: []column{
		{name: "department_id", dev: "division_id", typ: "integer", desc: "unique id of the department"},
		{name: "department_name", dev: "division_name", typ: "text", desc: "name of the department"},
		{name: "office_city", dev: "location", typ: "text", desc: "city of the department's main office"},
	}},
	{name: "job", dev: "role", pk: []string{"job_id"}, cols: []column{
		{name: "job_id", dev: "role_id", typ: "integer", desc: "unique id of the job"},
		{name: "job_title", dev: "role_title", typ: "text", desc: "title of the job"},
		{name: "min_salary", dev: "pay_floor", typ: "real", desc: "bottom of the job's salary band, yearly, in US dollars"},
		{name: "max_salary", dev: "pay_ceiling", typ: "real", desc: "top of the job's salary band, yearly, in US dollars"},
	}},
	{name: "employee", dev: "staff_member", pk: []string{"employee_id"}, cols: []column{
		{name: "employee_id", dev: "staff_id", typ: "integer", desc: "unique id of the employee"},
		{name: "first_name", dev: "given_name", typ: "text", desc: "the employee's first name"},
		{name: "last_name", dev: "surname", typ: "text", desc: "the employee's last name"},
		{name: "email", dev: "work_email", typ: "text", desc: "the employee's work email address"},
		{name: "gender", dev: "sex", typ: "text", desc: "the employee's gender", values: "'F' = female, 'M' = male"},
		{name: "hire_date", dev: "start_date", typ: "date", desc: "date the employee was hired", values: "YYYY-MM-DD"},
		{name: "job_id", dev: "role_id", typ: "integer", desc: "the employee's job", ref: "job.job_id"},
		{name: "department_id", dev: "division_id", typ: "integer", desc: "the employee's department", ref: "department.department_id"},
		{name: "manager_id", dev: "supervisor_id", typ: "integer", desc: "the employee's direct manager, another employee", ref: "employee.employee_id", values: "NULL for department heads"},
		{name: "salary", dev: "annual_salary", typ: "real", desc: "current yearly salary in US dollars"},
	}},
	{name: "performance_review", dev: "appraisal", pk: []string{"review_id"}, cols: []column{
		{name: "review_id", dev: "appraisal_id", typ: "integer", desc: "unique id of the review"},
		{name: "employee_id", dev: "staff_id", typ: "integer", desc: "the reviewed employee", ref: "employee.employee_id"},
		{name: "review_year", dev: "appraisal_year", typ: "integer", desc: "year the review covers"},
		{name: "rating", dev: "score", typ: "integer", desc: "overall rating", values: "1 (unsatisfactory) to 5 (outstanding)"},
	}},
}

func populateHR(b *builder, r *rand.Rand) {
	depts := subset(r, hrDepartments, 9)
	cities := subset(r, usCities, 5)
	deptIdx := map[string]int{}
	for i, d := range depts {
		deptIdx[d] = i
		b.add("department", i+1, d, cities[r.IntN(len(cities))].name)
	}
	var jobs []jobInfo
	jobsOf := make([][]int, len(depts))
	for _, j := range jobsPool {
		if _, ok := deptIdx[j.deptKind]; !ok && j.deptKind != "" {
			continue
		}
		jobs = append(jobs, j)
		b.add("job", len(jobs), j.title, j.lo, j.hi)
		if j.deptKind != "" {
			jobsOf[deptIdx[j.deptKind]] = append(jobsOf[deptIdx[j.deptKind]], len(jobs)-1)
		}
	}
	jobID := func(title string) int {
		for i, j := range jobs {
			if j.title == title {
				return i
			}
		}
		return 0
	}
	head, mgr := jobID("Department Head"), jobID("Team Manager")
	last := newSkewed(r, lastNames, 0.6)
	company := pick(r, []string{"northwind.com", "acmecorp.com", "globex.com", "initech.com", "umbrella-co.com", "stark-ind.com"})
	nEmp := b.count(3000, 120)
	type emp struct{ hired, dept int }
	var emps []emp
	salaryOf := func(j jobInfo) float64 {
		s := uniform(r, j.lo, j.hi)
		if r.IntN(30) == 0 {
			s = j.lo * uniform(r, 0.85, 0.98)
		}
		return math.Round(s/100) * 100
	}
	add := func(j int, d int, manager any) int {
		p := newPerson(r, last)
		hired := dateBetween(r, day(2005, 1, 1), day(2024, 6, 30))
		id := len(emps) + 1
		emps = append(emps, emp{hired: hired.Year(), dept: d})
		email := strings.ToLower(strings.NewReplacer("'", "", " ", "").Replace(p.first+"."+p.last)) + itoa(id) + "@" + company
		b.add("employee", id, p.first, p.last, email, p.gender, fmtDate(hired), j+1, d+1, manager, salaryOf(jobs[j]))
		return id
	}
	managers := make([][]int, len(depts))
	for d := range depts {
		h := add(head, d, nil)
		for range 2 + r.IntN(4) {
			managers[d] = append(managers[d], add(mgr, d, h))
		}
	}
	deptW := newWeighted(len(depts), 0.5)
	for len(emps) < nEmp {
		d := deptW.draw(r)
		if len(jobsOf[d]) == 0 {
			continue
		}
		ms := managers[d]
		add(jobsOf[d][r.IntN(len(jobsOf[d]))], d, ms[r.IntN(len(ms))])
	}
	rev := 0
	for i, e := range emps {
		for y := max(e.hired+1, 2019); y <= 2024; y++ {
			rev++
			b.add("performance_review", rev, i+1, y, 1+pickWeighted(r, []float64{5, 12, 45, 28, 10}))
		}
	}
}

var hrFamilies = []family{
	{"hr/hired_year_gender", Simple, func(q *candidate) {
		year := q.Year("employee.hire_date")
		g := q.Choose("F", "M")
		q.Ask([]string{"How many {g} employees were hired in {year}?", "Count the {g} employees whose hire date is in {year}.", "What is the number of {g} employees who joined the company in {year}?"}, "g", genderWord[g], "year", year)
		q.Ev(genderWord[g]+" refers to {employee.gender} = ?; hired in "+year+" refers to strftime('%Y', {employee.hire_date}) = ?", g, year)
		q.SQL("SELECT COUNT(*) FROM {employee} WHERE {employee.gender} = ? AND strftime('%Y', {employee.hire_date}) = ?", g, year)
	}},
	{"hr/salary_above", Simple, func(q *candidate) {
		x := q.Threshold("employee.salary")
		year := q.Year("employee.hire_date")
		q.Ask([]string{"How many employees hired in {year} earn more than {x} a year?", "Count the employees who joined in {year} and have a salary above {x}.", "What is the number of employees hired in {year} whose annual salary exceeds {x}?"}, "x", dollars(x), "year", year)
		q.Ev("hired in "+year+" refers to strftime('%Y', {employee.hire_date}) = ?", year)
		q.SQL("SELECT COUNT(*) FROM {employee} WHERE strftime('%Y', {employee.hire_date}) = ? AND {employee.salary} > ?", year, x)
	}},
	{"hr/employee_email", Simple, func(q *candidate) {
		first, last, full := q.Person("employee")
		if q.Coin() {
			q.Ask([]string{"What is the work email address of {name}?", "Give the email of the employee {name}.", "Which email address does employee {name} use at work?"}, "name", full)
			q.SQL("SELECT {employee.email} FROM {employee} WHERE {employee.first_name} = ? AND {employee.last_name} = ?", first, last)
		} else {
			q.Ask([]string{"When was {name} hired?", "Give the hire date of the employee {name}.", "On what date did {name} join the company?"}, "name", full)
			q.SQL("SELECT {employee.hire_date} FROM {employee} WHERE {employee.first_name} = ? AND {employee.last_name} = ?", first, last)
		}
		q.One()
	}},
	{"hr/top_earner_year", Simple, func(q *candidate) {
		year := q.Year("employee.hire_date")
		g := q.Choose("F", "M")
		q.Ask([]string{"Who is the highest-paid {g} employee hired in {year}? Give the first and last name.", "Among {g} employees who joined in {year}, who earns the most? List the first and last name.", "Give the first and last name of the {g} employee hired in {year} with the highest salary."}, "g", genderWord[g], "year", year)
		q.Ev(genderWord[g]+" refers to {employee.gender} = ?; hired in "+year+" refers to strftime('%Y', {employee.hire_date}) = ?", g, year)
		q.Top("{employee.first_name}, {employee.last_name}", "FROM {employee} WHERE {employee.gender} = ? AND strftime('%Y', {employee.hire_date}) = ?", "{employee.salary}", true, g, year)
	}},
	{"hr/salary_band", Simple, func(q *candidate) {
		job := q.Distinct("job.job_title")
		q.Ask([]string{"What is the salary range of the {job} job? Give the minimum and maximum salary.", "Give the minimum and the maximum salary of the job titled {job}.", "What are the lowest and highest salaries in the band for {job}?"}, "job", job)
		q.SQL("SELECT {job.min_salary}, {job.max_salary} FROM {job} WHERE {job.job_title} = ?", job)
		q.One()
	}},
	{"hr/last_name_prefix", Simple, func(q *candidate) {
		name := q.Distinct("employee.last_name")
		if len(name) < 3 || name[1] == '\'' {
			q.Skip()
			return
		}
		p := name[:2]
		g := q.Choose("F", "M")
		q.Ask([]string{"How many {g} employees have a last name starting with '{p}'?", "Count the {g} employees whose last name begins with '{p}'.", "What is the number of {g} employees with a last name that starts with '{p}'?"}, "p", p, "g", genderWord[g])
		q.Ev(genderWord[g]+" refers to {employee.gender} = ?; last name starting with '"+p+"' refers to {employee.last_name} LIKE ?", g, p+"%")
		q.SQL("SELECT COUNT(*) FROM {employee} WHERE {employee.gender} = ? AND {employee.last_name} LIKE ?", g, p+"%")
	}},
	{"hr/ratings_year", Simple, func(q *candidate) {
		year := q.DistinctInt("performance_review.review_year")
		if q.Coin() {
			q.Ask([]string{"How many top-performer ratings were given in the {year} reviews?", "Count the {year} performance reviews that rated the employee a top performer.", "In {year}, how many reviews gave a top-performer rating?"}, "year", itoa(int(year)))
			q.Ev("top-performer rating refers to {performance_review.rating} = 5")
			q.SQL("SELECT COUNT(*) FROM {performance_review} WHERE {performance_review.review_year} = ? AND {performance_review.rating} = 5", year)
		} else {
			n := 1 + q.Intn(4)
			q.Ask([]string{"How many reviews in {year} gave a rating of {n}?", "Count the {year} performance reviews with a rating of {n}.", "What is the number of {year} reviews whose rating was {n}?"}, "year", itoa(int(year)), "n", itoa(n))
			q.SQL("SELECT COUNT(*) FROM {performance_review} WHERE {performance_review.review_year} = ? AND {performance_review.rating} = ?", year, n)
		}
	}},
	{"hr/avg_salary_hire_year", Simple, func(q *candidate) {
		year := q.Year("employee.hire_date")
		q.Ask([]string{"What is the average salary of employees hired in {year}?", "On average, how much do employees who joined in {year} earn?", "Calculate the mean salary of the employees with a hire date in {year}."}, "year", year)
		q.Ev("hired in "+year+" refers to strftime('%Y', {employee.hire_date}) = ?", year)
		q.SQL("SELECT AVG({employee.salary}) FROM {employee} WHERE strftime('%Y', {employee.hire_date}) = ?", year)
	}},
	{"hr/first_hire_year", Simple, func(q *candidate) {
		year := q.Year("employee.hire_date")
		first := q.Coin()
		if first {
			q.Ask([]string{"Who was the first employee hired in {year}? Give the first and last name.", "Give the first and last name of the employee with the earliest hire date in {year}.", "Which employee joined the company first in {year}? List the first and last name."}, "year", year)
		} else {
			q.Ask([]string{"Who was the last employee hired in {year}? Give the first and last name.", "Give the first and last name of the employee with the latest hire date in {year}.", "Which employee joined the company last in {year}? List the first and last name."}, "year", year)
		}
		q.Ev("hired in "+year+" refers to strftime('%Y', {employee.hire_date}) = ?", year)
		q.Top("{employee.first_name}, {employee.last_name}", "FROM {employee} WHERE strftime('%Y', {employee.hire_date}) = ?", "{employee.hire_date}", !first, year)
	}},

	{"hr/dept_headcount", Moderate, func(q *candidate) {
		dept := q.Distinct("department.department_name")
		g := q.Choose("F", "M")
		q.Ask([]string{"How many {g} employees work in the {dept} department?", "Count the {g} employees of the {dept} department.", "What is the number of {g} staff in {dept}?"}, "g", genderWord[g], "dept", dept)
		q.Ev(genderWord[g]+" refers to {employee.gender} = ?", g)
		q.SQL("SELECT COUNT(T1.{employee.employee_id}) FROM {employee} AS T1 INNER JOIN {department} AS T2 ON T1.{employee.department_id} = T2.{department.department_id} WHERE T2.{department.department_name} = ? AND T1.{employee.gender} = ?", dept, g)
	}},
	{"hr/job_of_employee", Moderate, func(q *candidate) {
		first, last, full := q.Person("employee")
		q.Ask([]string{"What is the job title of {name}?", "Which job does the employee {name} hold? Give the title.", "Give the job title of {name}."}, "name", full)
		q.SQL("SELECT T2.{job.job_title} FROM {employee} AS T1 INNER JOIN {job} AS T2 ON T1.{employee.job_id} = T2.{job.job_id} WHERE T1.{employee.first_name} = ? AND T1.{employee.last_name} = ?", first, last)
		q.One()
	}},
	{"hr/manager_of", Moderate, func(q *candidate) {
		first, last, full := q.Person("employee")
		q.Ask([]string{"Who is the direct manager of {name}? Give the first and last name.", "Give the first and last name of the manager {name} reports to.", "Which employee manages {name}? List the manager's first and last name."}, "name", full)
		q.SQL("SELECT T2.{employee.first_name}, T2.{employee.last_name} FROM {employee} AS T1 INNER JOIN {employee} AS T2 ON T1.{employee.manager_id} = T2.{employee.employee_id} WHERE T1.{employee.first_name} = ? AND T1.{employee.last_name} = ?", first, last)
		q.One()
	}},
	{"hr/dept_top_avg_salary", Moderate, func(q *candidate) {
		g := q.Choose("F", "M")
		year := q.Year("employee.hire_date")
		q.Ask([]string{"Among {g} employees hired in {year}, which department has the highest average salary?", "Which department pays the {g} employees it hired in {year} the most on average? Give the department name.", "Name the department with the highest average salary among {g} employees who joined in {year}."}, "g", genderWord[g], "year", year)
		q.Ev(genderWord[g]+" refers to {employee.gender} = ?; hired in "+year+" refers to strftime('%Y', {employee.hire_date}) = ?", g, year)
		q.Top("T2.{department.department_name}", "FROM {employee} AS T1 INNER JOIN {department} AS T2 ON T1.{employee.department_id} = T2.{department.department_id} WHERE T1.{employee.gender} = ? AND strftime('%Y', T1.{employee.hire_date}) = ? GROUP BY T2.{department.department_id}", "AVG(T1.{employee.salary})", true, g, year)
	}},
	{"hr/big_teams", Moderate, func(q *candidate) {
		counts := q.All("SELECT COUNT(*) AS n FROM {employee} WHERE {employee.manager_id} IS NOT NULL GROUP BY {employee.manager_id} ORDER BY n DESC LIMIT 30")
		if len(counts) < 5 {
			q.Skip()
			return
		}
		k := counts[2+q.Intn(len(counts)-2)].I(0)
		q.Ask([]string{"List the first and last names of managers with more than {k} direct reports.", "Which employees directly manage more than {k} people? Give their first and last names.", "Give the first and last name of every manager who has over {k} direct reports."}, "k", itoa(int(k)))
		q.Ev("direct reports of a manager are the employees whose {employee.manager_id} is that manager's {employee.employee_id}")
		q.SQL("SELECT T2.{employee.first_name}, T2.{employee.last_name} FROM {employee} AS T1 INNER JOIN {employee} AS T2 ON T1.{employee.manager_id} = T2.{employee.employee_id} GROUP BY T2.{employee.employee_id} HAVING COUNT(T1.{employee.employee_id}) > ?", k)
	}},
	{"hr/depts_of_hires", Moderate, func(q *candidate) {
		ym := q.Month("employee.hire_date")
		q.Ask([]string{"In which departments do the employees hired in {month} work? List each department name once.", "List the distinct departments of the employees who joined in {month}.", "Which different departments did the company hire into in {month}? Give the department names."}, "month", monthName(ym))
		q.Ev("hired in "+monthName(ym)+" refers to strftime('%Y-%m', {employee.hire_date}) = ?", ym)
		q.SQL("SELECT DISTINCT T2.{department.department_name} FROM {employee} AS T1 INNER JOIN {department} AS T2 ON T1.{employee.department_id} = T2.{department.department_id} WHERE strftime('%Y-%m', T1.{employee.hire_date}) = ?", ym)
	}},
	{"hr/gender_gap_dept", Moderate, func(q *candidate) {
		dept := q.Distinct("department.department_name")
		q.Ask([]string{"In the {dept} department, what is the number of female employees minus the number of male employees?", "How many more female than male employees does the {dept} department have? Give female minus male.", "For {dept}, subtract the count of male employees from the count of female employees."}, "dept", dept)
		q.Ev("female refers to {employee.gender} = 'F'; male refers to {employee.gender} = 'M'")
		q.SQL("SELECT SUM(CASE WHEN T1.{employee.gender} = 'F' THEN 1 ELSE 0 END) - SUM(CASE WHEN T1.{employee.gender} = 'M' THEN 1 ELSE 0 END) FROM {employee} AS T1 INNER JOIN {department} AS T2 ON T1.{employee.department_id} = T2.{department.department_id} WHERE T2.{department.department_name} = ?", dept)
	}},
	{"hr/avg_rating_employee", Moderate, func(q *candidate) {
		first, last, full := q.Person("employee")
		q.Ask([]string{"What is the average review rating of {name}?", "On average, what rating has {name} received in performance reviews?", "Calculate the mean performance review rating of the employee {name}."}, "name", full)
		q.SQL("SELECT AVG(T2.{performance_review.rating}) FROM {employee} AS T1 INNER JOIN {performance_review} AS T2 ON T1.{employee.employee_id} = T2.{performance_review.employee_id} WHERE T1.{employee.first_name} = ? AND T1.{employee.last_name} = ?", first, last)
	}},
	{"hr/employees_in_job", Moderate, func(q *candidate) {
		job := q.Distinct("job.job_title")
		year := q.Year("employee.hire_date")
		q.Ask([]string{"How many employees hired in {year} work as {job}?", "Count the employees with the job title {job} who joined in {year}.", "What is the number of employees with the job title {job} hired in {year}?"}, "job", job, "year", year)
		q.Ev("hired in "+year+" refers to strftime('%Y', {employee.hire_date}) = ?", year)
		q.SQL("SELECT COUNT(T1.{employee.employee_id}) FROM {employee} AS T1 INNER JOIN {job} AS T2 ON T1.{employee.job_id} = T2.{job.job_id} WHERE T2.{job.job_title} = ? AND strftime('%Y', T1.{employee.hire_date}) = ?", job, year)
	}},

	{"hr/pct_top_rated_dept", Challenging, func(q *candidate) {
		dept := q.Distinct("department.department_name")
		year := q.DistinctInt("performance_review.review_year")
		q.Ask([]string{"Among {dept} department employees reviewed in {year}, what percentage received the top rating of 5?", "What percent of the {year} reviews of {dept} employees gave a rating of 5?", "Calculate the percentage of {year} reviews in the {dept} department with a rating of 5."}, "dept", dept, "year", itoa(int(year)))
		q.Ev("percentage = DIVIDE(SUM({performance_review.rating} = 5), COUNT({performance_review.review_id})) * 100")
		q.SQL("SELECT CAST(SUM(CASE WHEN T3.{performance_review.rating} = 5 THEN 1 ELSE 0 END) AS REAL) * 100 / COUNT(T3.{performance_review.review_id}) FROM {department} AS T1 INNER JOIN {employee} AS T2 ON T1.{department.department_id} = T2.{employee.department_id} INNER JOIN {performance_review} AS T3 ON T2.{employee.employee_id} = T3.{performance_review.employee_id} WHERE T1.{department.department_name} = ? AND T3.{performance_review.review_year} = ?", dept, year)
	}},
	{"hr/below_band", Challenging, func(q *candidate) {
		dept := q.Distinct("department.department_name")
		q.Ask([]string{"How many employees in the {dept} department are paid below the minimum salary of their job?", "Count the {dept} employees whose salary is under the bottom of their job's salary band.", "What is the number of {dept} department employees earning less than their job's minimum salary?"}, "dept", dept)
		q.SQL("SELECT COUNT(T1.{employee.employee_id}) FROM {employee} AS T1 INNER JOIN {job} AS T2 ON T1.{employee.job_id} = T2.{job.job_id} INNER JOIN {department} AS T3 ON T1.{employee.department_id} = T3.{department.department_id} WHERE T3.{department.department_name} = ? AND T1.{employee.salary} < T2.{job.min_salary}", dept)
	}},
	{"hr/above_job_avg", Challenging, func(q *candidate) {
		job := q.Pick("SELECT T2.{job.job_title} FROM {employee} AS T1 INNER JOIN {job} AS T2 ON T1.{employee.job_id} = T2.{job.job_id} GROUP BY T2.{job.job_id} HAVING COUNT(*) BETWEEN 3 AND 80 ORDER BY 1").S(0)
		q.Ask([]string{"List the first and last names of employees working as {job} who earn more than the average salary of all {job} employees.", "Which employees with the job title {job} are paid above the average salary of that job? Give their first and last names.", "Give the first and last name of every {job} whose salary is higher than the average salary for that job."}, "job", job)
		q.SQL("SELECT T1.{employee.first_name}, T1.{employee.last_name} FROM {employee} AS T1 INNER JOIN {job} AS T2 ON T1.{employee.job_id} = T2.{job.job_id} WHERE T2.{job.job_title} = ? AND T1.{employee.salary} > (SELECT AVG(T3.{employee.salary}) FROM {employee} AS T3 INNER JOIN {job} AS T4 ON T3.{employee.job_id} = T4.{job.job_id} WHERE T4.{job.job_title} = ?)", job, job)
	}},
	{"hr/best_team", Challenging, func(q *candidate) {
		dept := q.Distinct("department.department_name")
		year := q.DistinctInt("performance_review.review_year")
		q.Ask([]string{"In the {dept} department, which manager's direct reports had the highest average rating in {year}? Give the manager's first and last name.", "Whose team in {dept} earned the best average review rating in {year}? List the manager's first and last name.", "Give the first and last name of the {dept} manager whose direct reports averaged the highest rating in {year}."}, "dept", dept, "year", itoa(int(year)))
		q.Ev("direct reports of a manager are the employees whose {employee.manager_id} is that manager's {employee.employee_id}")
		q.Top("T2.{employee.first_name}, T2.{employee.last_name}", "FROM {employee} AS T1 INNER JOIN {employee} AS T2 ON T1.{employee.manager_id} = T2.{employee.employee_id} INNER JOIN {performance_review} AS T3 ON T1.{employee.employee_id} = T3.{performance_review.employee_id} INNER JOIN {department} AS T4 ON T2.{employee.department_id} = T4.{department.department_id} WHERE T4.{department.department_name} = ? AND T3.{performance_review.review_year} = ? GROUP BY T2.{employee.employee_id}", "AVG(T3.{performance_review.rating})", true, dept, year)
	}},
	{"hr/salary_ratio", Challenging, func(q *candidate) {
		r := q.Pick("SELECT a.{department.department_name}, b.{department.department_name} FROM {department} AS a, {department} AS b WHERE a.{department.department_id} <> b.{department.department_id} ORDER BY 1, 2")
		d1, d2 := r.S(0), r.S(1)
		q.Ask([]string{"How many times higher is the average salary in the {d1} department than in the {d2} department?", "What is the ratio of the average salary of {d1} employees to that of {d2} employees?", "Divide the average salary in {d1} by the average salary in {d2}."}, "d1", d1, "d2", d2)
		q.Ev("ratio = DIVIDE(AVG({employee.salary}) WHERE {department.department_name} = ?, AVG({employee.salary}) WHERE {department.department_name} = ?)", d1, d2)
		q.SQL("SELECT (SELECT AVG(T1.{employee.salary}) FROM {employee} AS T1 INNER JOIN {department} AS T2 ON T1.{employee.department_id} = T2.{department.department_id} WHERE T2.{department.department_name} = ?) / (SELECT AVG(T1.{employee.salary}) FROM {employee} AS T1 INNER JOIN {department} AS T2 ON T1.{employee.department_id} = T2.{department.department_id} WHERE T2.{department.department_name} = ?)", d1, d2)
	}},
	{"hr/most_top_ratings_dept", Challenging, func(q *candidate) {
		year := q.DistinctInt("performance_review.review_year")
		n := q.Choose("5", "1")
		word := map[string]string{"5": "the top rating of 5", "1": "the lowest rating of 1"}[n]
		q.Ask([]string{"Which department had the most employees receiving {w} in {year}?", "In {year}, which department's employees got {w} most often? Give the department name.", "Name the department with the highest number of {year} reviews giving {w}."}, "w", word, "year", itoa(int(year)))
		q.Top("T1.{department.department_name}", "FROM {department} AS T1 INNER JOIN {employee} AS T2 ON T1.{department.department_id} = T2.{employee.department_id} INNER JOIN {performance_review} AS T3 ON T2.{employee.employee_id} = T3.{performance_review.employee_id} WHERE T3.{performance_review.review_year} = ? AND T3.{performance_review.rating} = ? GROUP BY T1.{department.department_id}", "COUNT(T3.{performance_review.review_id})", true, year, int(n[0]-'0'))
	}},
}
