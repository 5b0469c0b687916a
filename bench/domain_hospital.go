package bench

import (
	"math/rand/v2"
)

// Hospital: departments, doctors, patients, admissions and prescriptions.

type ward struct {
	name, specialty string
	diagnoses       []string
	drugs           []string
	costPerDay      float64
}

var wards = []ward{
	{"Cardiology", "Cardiologist", []string{"Atrial fibrillation", "Heart failure", "Myocardial infarction", "Angina", "Hypertensive crisis"}, []string{"Aspirin", "Metoprolol", "Atorvastatin", "Lisinopril", "Warfarin"}, 3200},
	{"Neurology", "Neurologist", []string{"Ischemic stroke", "Migraine", "Epilepsy", "Multiple sclerosis"}, []string{"Levetiracetam", "Sumatriptan", "Aspirin", "Gabapentin"}, 2900},
	{"Orthopedics", "Orthopedic Surgeon", []string{"Hip fracture", "Osteoarthritis", "ACL tear", "Spinal stenosis"}, []string{"Ibuprofen", "Paracetamol", "Morphine", "Enoxaparin"}, 2600},
	{"Pediatrics", "Pediatrician", []string{"Bronchiolitis", "Asthma", "Otitis media", "Gastroenteritis"}, []string{"Amoxicillin", "Paracetamol", "Salbutamol", "Ibuprofen"}, 1900},
	{"Oncology", "Oncologist", []string{"Breast cancer", "Lung cancer", "Lymphoma", "Colon cancer"}, []string{"Ondansetron", "Dexamethasone", "Morphine", "Paracetamol"}, 4100},
	{"Internal Medicine", "Internist", []string{"Pneumonia", "Type 2 diabetes", "Sepsis", "COPD exacerbation", "Urinary tract infection"}, []string{"Ceftriaxone", "Metformin", "Insulin", "Prednisone", "Amoxicillin"}, 2200},
	{"General Surgery", "General Surgeon", []string{"Appendicitis", "Gallstones", "Inguinal hernia", "Bowel obstruction"}, []string{"Cefazolin", "Morphine", "Paracetamol", "Omeprazole"}, 3000},
	{"Psychiatry", "Psychiatrist", []string{"Major depression", "Bipolar disorder", "Schizophrenia", "Anxiety disorder"}, []string{"Sertraline", "Lithium", "Olanzapine", "Lorazepam"}, 1500},
	{"Obstetrics", "Obstetrician", []string{"Normal delivery", "Cesarean delivery", "Preeclampsia"}, []string{"Oxytocin", "Paracetamol", "Iron sulfate"}, 2400},
	{"Dermatology", "Dermatologist", []string{"Cellulitis", "Severe psoriasis", "Burns"}, []string{"Cefazolin", "Prednisone", "Methotrexate"}, 1700},
}

var drugDoses = map[string][]int{
	"Aspirin": {81, 325}, "Metoprolol": {25, 50, 100}, "Atorvastatin": {20, 40, 80}, "Lisinopril": {10, 20}, "Warfarin": {2, 5},
	"Levetiracetam": {500, 1000}, "Sumatriptan": {50, 100}, "Gabapentin": {300, 600}, "Ibuprofen": {400, 600}, "Paracetamol": {500, 1000},
	"Morphine": {5, 10}, "Enoxaparin": {40, 80}, "Amoxicillin": {250, 500}, "Salbutamol": {2, 4}, "Ondansetron": {4, 8},
	"Dexamethasone": {4, 8}, "Ceftriaxone": {1000, 2000}, "Metformin": {500, 1000}, "Insulin": {10, 20}, "Prednisone": {10, 20, 40},
	"Cefazolin": {1000, 2000}, "Omeprazole": {20, 40}, "Sertraline": {50, 100}, "Lithium": {300, 600}, "Olanzapine": {5, 10},
	"Lorazepam": {1, 2}, "Oxytocin": {10, 20}, "Iron sulfate": {200, 325}, "Methotrexate": {10, 15},
}

var bloodTypes = []string{"O+", "A+", "B+", "AB+", "O-", "A-", "B-", "AB-"}
var bloodWeights = []float64{38, 34, 9, 3, 7, 6, 2, 1}
var insurances = []string{"Medicare", "Medicaid", "Private", "Uninsured"}

// insuredPatients words a group of patients by insurance: "uninsured
// patients", not "patients insured by Uninsured".
func insuredPatients(ins string) string {
	switch ins {
	case "Uninsured":
		return "uninsured patients"
	case "Private":
		return "privately insured patients"
	}
	return "patients covered by " + ins
}

func hospitalDomain() *domain {
	return &domain{
		name: "hospital", devName: "clinic",
		title:    "a hospital: departments, doctors, patients, admissions with diagnoses and costs, and prescriptions",
		tables:   hospitalTables,
		populate: populateHospital,
		families: hospitalFamilies,
	}
}

var hospitalTables = []table{
	{name: "department", dev: "ward", pk: []string{"department_id"}, cols: []column{
		{name: "department_id", dev: "ward_id", typ: "integer", desc: "unique id of the department"},
		{name: "department_name", dev: "ward_name", typ: "text", desc: "name of the department"},
		{name: "floor", dev: "floor_number", typ: "integer", desc: "floor of the hospital building the department is on"},
	}},
	{name: "doctor", dev: "physician", pk: []string{"doctor_id"}, cols: []column{
		{name: "doctor_id", dev: "physician_id", typ: "integer", desc: "unique id of the doctor"},
		{name: "first_name", dev: "given_name", typ: "text", desc: "the doctor's first name"},
		{name: "last_name", dev: "surname", typ: "text", desc: "the doctor's last name"},
		{name: "specialty", dev: "specialisation", typ: "text", desc: "the doctor's medical specialty", values: "e.g. 'Cardiologist', 'Neurologist', 'Pediatrician'"},
		{name: "department_id", dev: "ward_id", typ: "integer", desc: "department the doctor works in", ref: "department.department_id"},
		{name: "hire_date", dev: "employed_since", typ: "date", desc: "date the doctor joined the hospital", values: "YYYY-MM-DD"},
	}},
	{name: "patient", dev: "patient_profile", pk: []string{"patient_id"}, cols: []column{
		{name: "patient_id", dev: "profile_id", typ: "integer", desc: "unique id of the patient"},
		{name: "first_name", dev: "given_name", typ: "text", desc: "the patient's first name"},
		{name: "last_name", dev: "surname", typ: "text", desc: "the patient's last name"},
		{name: "gender", dev: "sex", typ: "text", desc: "the patient's gender", values: "'F' = female, 'M' = male"},
		{name: "birth_date", dev: "date_of_birth", typ: "date", desc: "the patient's date of birth", values: "YYYY-MM-DD"},
		{name: "city", dev: "home_city", typ: "text", desc: "city the patient lives in"},
		{name: "blood_type", dev: "blood_group", typ: "text", desc: "ABO blood group and Rh factor", values: "e.g. 'O+', 'A-', 'AB+'"},
		{name: "insurance", dev: "coverage_type", typ: "text", desc: "the patient's health insurance", values: "'Medicare', 'Medicaid', 'Private' or 'Uninsured' (no insurance)"},
	}},
	{name: "admission", dev: "hospital_stay", pk: []string{"admission_id"}, cols: []column{
		{name: "admission_id", dev: "stay_id", typ: "integer", desc: "unique id of the admission"},
		{name: "patient_id", dev: "profile_id", typ: "integer", desc: "the admitted patient", ref: "patient.patient_id"},
		{name: "doctor_id", dev: "physician_id", typ: "integer", desc: "the attending doctor", ref: "doctor.doctor_id"},
		{name: "admit_date", dev: "admitted_on", typ: "date", desc: "date of admission", values: "YYYY-MM-DD"},
		{name: "discharge_date", dev: "discharged_on", typ: "date", desc: "date of discharge", values: "YYYY-MM-DD; length of stay in days = julianday(discharge) - julianday(admission)"},
		{name: "diagnosis", dev: "primary_diagnosis", typ: "text", desc: "primary diagnosis of the admission"},
		{name: "total_cost", dev: "billed_amount", typ: "real", desc: "total amount billed for the admission, in US dollars"},
	}},
	{name: "prescription", dev: "medication_order", pk: []string{"prescription_id"}, cols: []column{
		{name: "prescription_id", dev: "order_no", typ: "integer", desc: "unique id of the prescription"},
		{name: "admission_id", dev: "stay_id", typ: "integer", desc: "admission during which the drug was prescribed", ref: "admission.admission_id"},
		{name: "drug_name", dev: "medication", typ: "text", desc: "name of the prescribed drug"},
		{name: "dose_mg", dev: "dosage_mg", typ: "integer", desc: "dose per administration in milligrams"},
		{name: "days_supplied", dev: "duration_days", typ: "integer", desc: "number of days the drug was prescribed for"},
	}},
}

func populateHospital(b *builder, r *rand.Rand) {
	last := newSkewed(r, lastNames, 0.6)
	ws := subset(r, wards, 8)
	floors := shuffled(r, seq(len(ws)))
	for i, w := range ws {
		b.add("department", i+1, w.name, 1+floors[i]%6)
	}
	nDoc := b.count(80, 24)
	docDept := make([]int, nDoc)
	for i := range nDoc {
		d := i % len(ws)
		if i >= len(ws) {
			d = r.IntN(len(ws))
		}
		docDept[i] = d
		p := newPerson(r, last)
		b.add("doctor", i+1, p.first, p.last, ws[d].specialty, d+1, fmtDate(dateBetween(r, day(1995, 1, 1), day(2022, 12, 31))))
	}
	byDept := make([][]int, len(ws))
	for i, d := range docDept {
		byDept[d] = append(byDept[d], i)
	}
	cities := newSkewed(r, subset(r, usCities, 25), 0.9)
	nPat := b.count(2500, 100)
	type pat struct {
		born   int
		gender string
	}
	pats := make([]pat, nPat)
	for i := range nPat {
		p := newPerson(r, last)
		born := dateBetween(r, day(1935, 1, 1), day(2022, 12, 31))
		ins := insurances[pickWeighted(r, []float64{15, 20, 55, 10})]
		if born.Year() < 1959 {
			ins = insurances[pickWeighted(r, []float64{80, 5, 13, 2})]
		}
		pats[i] = pat{born: born.Year(), gender: p.gender}
		b.add("patient", i+1, p.first, p.last, p.gender, fmtDate(born), cities.draw(r).name, bloodTypes[pickWeighted(r, bloodWeights)], ins)
	}
	patW := newWeighted(nPat, 0.4)
	patOrder := shuffled(r, seq(nPat))
	deptW := newWeighted(len(ws), 0.5)
	nAdm := b.count(6000, 200)
	rx := 0
	for a := 1; a <= nAdm; a++ {
		pi := patOrder[patW.draw(r)]
		d := deptW.draw(r)
		switch {
		case ws[d].name == "Pediatrics" && pats[pi].born < 2006, ws[d].name == "Obstetrics" && (pats[pi].gender != "F" || pats[pi].born > 2004):
			d = (d + 1) % len(ws)
			if ws[d].name == "Pediatrics" || ws[d].name == "Obstetrics" {
				d = (d + 1) % len(ws)
			}
		}
		w := ws[d]
		doc := byDept[d][r.IntN(len(byDept[d]))]
		admit := dateBetween(r, day(2019, 1, 1), day(2024, 12, 15))
		stay := 1 + int(r.ExpFloat64()*4)
		if stay > 45 {
			stay = 45
		}
		discharge := admit.AddDate(0, 0, stay)
		cost := cents(w.costPerDay * float64(stay) * uniform(r, 0.7, 1.4))
		b.add("admission", a, pi+1, doc+1, fmtDate(admit), fmtDate(discharge), pick(r, w.diagnoses), cost)
		for range r.IntN(4) {
			drug := pick(r, w.drugs)
			rx++
			b.add("prescription", rx, a, drug, pick(r, drugDoses[drug]), min(stay+r.IntN(30), 60))
		}
	}
}

var hospitalFamilies = []family{
	{"hospital/blood_city", Simple, func(q *candidate) {
		city := q.Distinct("patient.city")
		bt := q.Choose(bloodTypes...)
		q.Ask([]string{"How many patients from {city} have blood type {bt}?", "Count the patients living in {city} whose blood type is {bt}.", "What is the number of {city} patients with the blood type {bt}?"}, "city", city, "bt", bt)
		q.SQL("SELECT COUNT(*) FROM {patient} WHERE {patient.city} = ? AND {patient.blood_type} = ?", city, bt)
	}},
	{"hospital/insurance_gender", Simple, func(q *candidate) {
		g := q.Choose("F", "M")
		ins := q.Choose(insurances...)
		if ins == "Uninsured" {
			q.Ask([]string{"How many {g} patients are uninsured?", "Count the {g} patients who have no health insurance.", "What is the number of uninsured {g} patients?"}, "g", genderWord[g])
			q.Ev(genderWord[g]+" refers to {patient.gender} = ?; uninsured refers to {patient.insurance} = 'Uninsured'", g)
		} else if ins == "Private" {
			q.Ask([]string{"How many {g} patients have private health insurance?", "Count the {g} patients who are privately insured.", "What is the number of privately insured {g} patients?"}, "g", genderWord[g])
			q.Ev(genderWord[g]+" refers to {patient.gender} = ?; private insurance refers to {patient.insurance} = 'Private'", g)
		} else {
			q.Ask([]string{"How many {g} patients are covered by {ins}?", "Count the {g} patients whose insurance is {ins}.", "What is the number of {g} patients insured through {ins}?"}, "g", genderWord[g], "ins", ins)
			q.Ev(genderWord[g]+" refers to {patient.gender} = ?", g)
		}
		q.SQL("SELECT COUNT(*) FROM {patient} WHERE {patient.gender} = ? AND {patient.insurance} = ?", g, ins)
	}},
	{"hospital/admissions_in_month", Simple, func(q *candidate) {
		ym := q.Month("admission.admit_date")
		q.Ask([]string{"How many admissions were recorded in {month}?", "What is the number of admissions in {month}?", "Count the admissions whose admission date falls in {month}."}, "month", monthName(ym))
		q.Ev("in "+monthName(ym)+" refers to strftime('%Y-%m', {admission.admit_date}) = ?", ym)
		q.SQL("SELECT COUNT(*) FROM {admission} WHERE strftime('%Y-%m', {admission.admit_date}) = ?", ym)
	}},
	{"hospital/diagnosis_year", Simple, func(q *candidate) {
		diag := q.Distinct("admission.diagnosis")
		year := q.Year("admission.admit_date")
		q.Ask([]string{"How many admissions for {diag} were there in {year}?", "Count the admissions in {year} whose primary diagnosis was {diag}.", "In {year}, how many times was a patient admitted with a diagnosis of {diag}?"}, "diag", diag, "year", year)
		q.Ev("in "+year+" refers to strftime('%Y', {admission.admit_date}) = ?", year)
		q.SQL("SELECT COUNT(*) FROM {admission} WHERE {admission.diagnosis} = ? AND strftime('%Y', {admission.admit_date}) = ?", diag, year)
	}},
	{"hospital/patient_birth", Simple, func(q *candidate) {
		first, last, full := q.Person("patient")
		if q.Coin() {
			q.Ask([]string{"What is the date of birth of the patient {name}?", "When was the patient {name} born?", "Give the birth date of patient {name}."}, "name", full)
			q.SQL("SELECT {patient.birth_date} FROM {patient} WHERE {patient.first_name} = ? AND {patient.last_name} = ?", first, last)
		} else {
			q.Ask([]string{"What is the blood type of the patient {name}?", "Which blood type does patient {name} have?", "Give the blood type of {name}, a patient."}, "name", full)
			q.SQL("SELECT {patient.blood_type} FROM {patient} WHERE {patient.first_name} = ? AND {patient.last_name} = ?", first, last)
		}
		q.One()
	}},
	{"hospital/max_cost_diag", Simple, func(q *candidate) {
		diag := q.Distinct("admission.diagnosis")
		if q.Coin() {
			q.Ask([]string{"What is the highest total cost recorded for a single admission for {diag}?", "How much did the most expensive admission for {diag} cost?", "Give the maximum amount billed for one admission with a diagnosis of {diag}."}, "diag", diag)
			q.SQL("SELECT MAX({admission.total_cost}) FROM {admission} WHERE {admission.diagnosis} = ?", diag)
		} else {
			q.Ask([]string{"What is the average total cost of admissions for {diag}?", "On average, how much was billed per admission for {diag}?", "Calculate the mean amount billed for admissions diagnosed with {diag}."}, "diag", diag)
			q.SQL("SELECT AVG({admission.total_cost}) FROM {admission} WHERE {admission.diagnosis} = ?", diag)
		}
	}},
	{"hospital/long_stays", Simple, func(q *candidate) {
		year := q.Year("admission.admit_date")
		n := []int{5, 7, 10, 14, 21}[q.Intn(5)]
		q.Ask([]string{"How many admissions in {year} lasted longer than {n} days?", "Count the {year} admissions with a length of stay above {n} days.", "What is the number of admissions from {year} where the patient stayed more than {n} days?"}, "year", year, "n", itoa(n))
		q.Ev("in "+year+" refers to strftime('%Y', {admission.admit_date}) = ?; length of stay = julianday({admission.discharge_date}) - julianday({admission.admit_date})", year)
		q.SQL("SELECT COUNT(*) FROM {admission} WHERE strftime('%Y', {admission.admit_date}) = ? AND julianday({admission.discharge_date}) - julianday({admission.admit_date}) > ?", year, n)
	}},
	{"hospital/doctors_hired_after", Simple, func(q *candidate) {
		spec := q.Distinct("doctor.specialty")
		year := q.Year("doctor.hire_date")
		q.Ask([]string{"How many doctors with the specialty {spec} were hired after {year}?", "Count the doctors whose specialty is {spec} and who joined the hospital after {year}.", "What is the number of {spec} doctors hired later than {year}?"}, "spec", spec, "year", year)
		q.Ev("hired after "+year+" refers to strftime('%Y', {doctor.hire_date}) > ?", year)
		q.SQL("SELECT COUNT(*) FROM {doctor} WHERE {doctor.specialty} = ? AND strftime('%Y', {doctor.hire_date}) > ?", spec, year)
	}},
	{"hospital/long_prescriptions", Simple, func(q *candidate) {
		drug := q.Distinct("prescription.drug_name")
		n := []int{7, 14, 21, 30}[q.Intn(4)]
		q.Ask([]string{"How many prescriptions of {drug} were for more than {n} days?", "Count the {drug} prescriptions supplied for over {n} days.", "What is the number of prescriptions for {drug} lasting more than {n} days?"}, "drug", drug, "n", itoa(n))
		q.SQL("SELECT COUNT(*) FROM {prescription} WHERE {prescription.drug_name} = ? AND {prescription.days_supplied} > ?", drug, n)
	}},
	{"hospital/oldest_patient_city", Simple, func(q *candidate) {
		city := q.Distinct("patient.city")
		old := q.Coin()
		if old {
			q.Ask([]string{"Who is the oldest patient from {city}? Give the first and last name.", "Give the first and last name of the oldest patient living in {city}.", "Which patient from {city} was born first? List the first and last name."}, "city", city)
		} else {
			q.Ask([]string{"Who is the youngest patient from {city}? Give the first and last name.", "Give the first and last name of the youngest patient living in {city}.", "Which patient from {city} was born most recently? List the first and last name."}, "city", city)
		}
		q.Top("{patient.first_name}, {patient.last_name}", "FROM {patient} WHERE {patient.city} = ?", "{patient.birth_date}", !old, city)
	}},

	{"hospital/admissions_of_patient", Moderate, func(q *candidate) {
		first, last, full := q.Person("patient")
		q.Ask([]string{"How many times has {name} been admitted to the hospital?", "Count the admissions of the patient {name}.", "What is the number of hospital admissions for {name}?"}, "name", full)
		q.SQL("SELECT COUNT(T2.{admission.admission_id}) FROM {patient} AS T1 INNER JOIN {admission} AS T2 ON T1.{patient.patient_id} = T2.{admission.patient_id} WHERE T1.{patient.first_name} = ? AND T1.{patient.last_name} = ?", first, last)
	}},
	{"hospital/patients_of_doctor", Moderate, func(q *candidate) {
		first, last, full := q.Person("doctor")
		year := q.Year("admission.admit_date")
		q.Ask([]string{"How many different patients did Dr. {name} treat in {year}?", "Count the distinct patients admitted under Dr. {name} in {year}.", "In {year}, how many distinct patients had Dr. {name} as their attending doctor?"}, "name", full, "year", year)
		q.Ev("in "+year+" refers to strftime('%Y', {admission.admit_date}) = ?", year)
		q.SQL("SELECT COUNT(DISTINCT T2.{admission.patient_id}) FROM {doctor} AS T1 INNER JOIN {admission} AS T2 ON T1.{doctor.doctor_id} = T2.{admission.doctor_id} WHERE T1.{doctor.first_name} = ? AND T1.{doctor.last_name} = ? AND strftime('%Y', T2.{admission.admit_date}) = ?", first, last, year)
	}},
	{"hospital/common_diagnosis", Moderate, func(q *candidate) {
		year := q.Year("admission.admit_date")
		ins := q.Choose(insurances...)
		q.Ask([]string{"What was the most common diagnosis among admissions of {pats} in {year}?", "Which diagnosis appeared most often in {year} admissions of {pats}?", "Name the diagnosis with the most admissions in {year} among {pats}."}, "pats", insuredPatients(ins), "year", year)
		q.Ev(insuredPatients(ins)+" refers to {patient.insurance} = ?; in "+year+" refers to strftime('%Y', {admission.admit_date}) = ?", ins, year)
		q.Top("T2.{admission.diagnosis}", "FROM {patient} AS T1 INNER JOIN {admission} AS T2 ON T1.{patient.patient_id} = T2.{admission.patient_id} WHERE T1.{patient.insurance} = ? AND strftime('%Y', T2.{admission.admit_date}) = ? GROUP BY T2.{admission.diagnosis}", "COUNT(*)", true, ins, year)
	}},
	{"hospital/frequent_patients", Moderate, func(q *candidate) {
		counts := q.All("SELECT COUNT(*) AS n FROM {admission} GROUP BY {admission.patient_id} ORDER BY n DESC LIMIT 25")
		if len(counts) < 5 {
			q.Skip()
			return
		}
		k := counts[2+q.Intn(len(counts)-2)].I(0)
		q.Ask([]string{"List the first and last names of patients admitted more than {k} times.", "Which patients have more than {k} admissions? Give their first and last names.", "Give the first and last name of every patient with more than {k} hospital admissions."}, "k", itoa(int(k)))
		q.SQL("SELECT T1.{patient.first_name}, T1.{patient.last_name} FROM {patient} AS T1 INNER JOIN {admission} AS T2 ON T1.{patient.patient_id} = T2.{admission.patient_id} GROUP BY T1.{patient.patient_id} HAVING COUNT(T2.{admission.admission_id}) > ?", k)
	}},
	{"hospital/drugs_for_diagnosis", Moderate, func(q *candidate) {
		diag := q.Distinct("admission.diagnosis")
		year := q.Year("admission.admit_date")
		q.Ask([]string{"Which distinct drugs were prescribed during admissions for {diag} in {year}?", "List each drug prescribed at least once during an admission for {diag} in {year}.", "What different drugs were given during {year} admissions with a diagnosis of {diag}?"}, "diag", diag, "year", year)
		q.Ev("in "+year+" refers to strftime('%Y', {admission.admit_date}) = ?", year)
		q.SQL("SELECT DISTINCT T2.{prescription.drug_name} FROM {admission} AS T1 INNER JOIN {prescription} AS T2 ON T1.{admission.admission_id} = T2.{prescription.admission_id} WHERE T1.{admission.diagnosis} = ? AND strftime('%Y', T1.{admission.admit_date}) = ?", diag, year)
	}},
	{"hospital/diagnosis_difference", Moderate, func(q *candidate) {
		r := q.Pick("SELECT a.{admission.diagnosis}, b.{admission.diagnosis} FROM (SELECT DISTINCT {admission.diagnosis} FROM {admission}) AS a, (SELECT DISTINCT {admission.diagnosis} FROM {admission}) AS b WHERE a.{admission.diagnosis} < b.{admission.diagnosis} ORDER BY 1, 2")
		d1, d2 := r.S(0), r.S(1)
		if q.Coin() {
			d1, d2 = d2, d1
		}
		year := q.Year("admission.admit_date")
		q.Ask([]string{"In {year}, how many more admissions were for {d1} than for {d2}?", "What is the number of {year} admissions for {d1} minus the number for {d2}?", "How many more {year} admissions were for {d1} than for {d2}?"}, "d1", d1, "d2", d2, "year", year)
		q.Ev("in "+year+" refers to strftime('%Y', {admission.admit_date}) = ?; difference = SUBTRACT(SUM({admission.diagnosis} = ?), SUM({admission.diagnosis} = ?))", year, d1, d2)
		q.SQL("SELECT SUM(CASE WHEN {admission.diagnosis} = ? THEN 1 ELSE 0 END) - SUM(CASE WHEN {admission.diagnosis} = ? THEN 1 ELSE 0 END) FROM {admission} WHERE strftime('%Y', {admission.admit_date}) = ?", d1, d2, year)
	}},
	{"hospital/avg_stay_doctor", Moderate, func(q *candidate) {
		first, last, full := q.Person("doctor")
		q.Ask([]string{"What is the average length of stay, in days, of admissions handled by Dr. {name}?", "On average, how many days did patients of Dr. {name} stay in hospital?", "Calculate the mean length of stay of the admissions where {name} was the attending doctor."}, "name", full)
		q.Ev("length of stay = julianday({admission.discharge_date}) - julianday({admission.admit_date})")
		q.SQL("SELECT AVG(julianday(T2.{admission.discharge_date}) - julianday(T2.{admission.admit_date})) FROM {doctor} AS T1 INNER JOIN {admission} AS T2 ON T1.{doctor.doctor_id} = T2.{admission.doctor_id} WHERE T1.{doctor.first_name} = ? AND T1.{doctor.last_name} = ?", first, last)
	}},
	{"hospital/total_billed_patient", Moderate, func(q *candidate) {
		first, last, full := q.Person("patient")
		q.Ask([]string{"What is the total amount billed for all admissions of {name}?", "How much has the patient {name} been billed in total across admissions?", "Calculate the sum of the costs of every admission of {name}."}, "name", full)
		q.SQL("SELECT SUM(T2.{admission.total_cost}) FROM {patient} AS T1 INNER JOIN {admission} AS T2 ON T1.{patient.patient_id} = T2.{admission.patient_id} WHERE T1.{patient.first_name} = ? AND T1.{patient.last_name} = ?", first, last)
	}},

	{"hospital/pct_uninsured_diag", Challenging, func(q *candidate) {
		diag := q.Distinct("admission.diagnosis")
		ins := q.Choose(insurances...)
		q.Ask([]string{"What percentage of admissions for {diag} were of {pats}?", "Among admissions with a diagnosis of {diag}, what percent involved {pats}?", "Calculate the percentage of {diag} admissions that were admissions of {pats}."}, "diag", diag, "pats", insuredPatients(ins))
		q.Ev(insuredPatients(ins)+" refers to {patient.insurance} = ?; percentage = DIVIDE(SUM({patient.insurance} = ?), COUNT({admission.admission_id})) * 100", ins, ins)
		q.SQL("SELECT CAST(SUM(CASE WHEN T1.{patient.insurance} = ? THEN 1 ELSE 0 END) AS REAL) * 100 / COUNT(T2.{admission.admission_id}) FROM {patient} AS T1 INNER JOIN {admission} AS T2 ON T1.{patient.patient_id} = T2.{admission.patient_id} WHERE T2.{admission.diagnosis} = ?", ins, diag)
	}},
	{"hospital/busiest_department", Challenging, func(q *candidate) {
		year := q.Year("admission.admit_date")
		g := q.Choose("F", "M")
		q.Ask([]string{"Which department handled the most admissions of {g} patients in {year}?", "In {year}, which department had the highest number of admissions of {g} patients? Give its name.", "Name the department with the most {year} admissions of {g} patients."}, "g", genderWord[g], "year", year)
		q.Ev(genderWord[g]+" refers to {patient.gender} = ?; in "+year+" refers to strftime('%Y', {admission.admit_date}) = ?", g, year)
		q.Top("T4.{department.department_name}", "FROM {patient} AS T1 INNER JOIN {admission} AS T2 ON T1.{patient.patient_id} = T2.{admission.patient_id} INNER JOIN {doctor} AS T3 ON T2.{admission.doctor_id} = T3.{doctor.doctor_id} INNER JOIN {department} AS T4 ON T3.{doctor.department_id} = T4.{department.department_id} WHERE T1.{patient.gender} = ? AND strftime('%Y', T2.{admission.admit_date}) = ? GROUP BY T4.{department.department_id}", "COUNT(T2.{admission.admission_id})", true, g, year)
	}},
	{"hospital/above_avg_cost", Challenging, func(q *candidate) {
		diag := q.Distinct("admission.diagnosis")
		year := q.Year("admission.admit_date")
		q.Ask([]string{"How many {year} admissions for {diag} cost more than the average cost of all admissions for {diag}?", "Count the admissions for {diag} in {year} whose total cost exceeded the average total cost of every {diag} admission.", "In {year}, how many {diag} admissions were billed above the all-time average for {diag}?"}, "diag", diag, "year", year)
		q.Ev("in "+year+" refers to strftime('%Y', {admission.admit_date}) = ?", year)
		q.SQL("SELECT COUNT(*) FROM {admission} WHERE {admission.diagnosis} = ? AND strftime('%Y', {admission.admit_date}) = ? AND {admission.total_cost} > (SELECT AVG({admission.total_cost}) FROM {admission} WHERE {admission.diagnosis} = ?)", diag, year, diag)
	}},
	{"hospital/drug_in_department", Challenging, func(q *candidate) {
		r := q.Pick("SELECT DISTINCT T4.{department.department_name}, T1.{prescription.drug_name} FROM {prescription} AS T1 INNER JOIN {admission} AS T2 ON T1.{prescription.admission_id} = T2.{admission.admission_id} INNER JOIN {doctor} AS T3 ON T2.{admission.doctor_id} = T3.{doctor.doctor_id} INNER JOIN {department} AS T4 ON T3.{doctor.department_id} = T4.{department.department_id} ORDER BY 1, 2")
		dept, drug := r.S(0), r.S(1)
		year := q.Year("admission.admit_date")
		q.Ask([]string{"How many prescriptions of {drug} were written in the {dept} department for patients admitted in {year}?", "Count the {drug} prescriptions from {year} admissions handled by doctors of the {dept} department.", "In {year}, how many times did {dept} department doctors prescribe {drug} during an admission?"}, "drug", drug, "dept", dept, "year", year)
		q.Ev("in "+year+" refers to strftime('%Y', {admission.admit_date}) = ?", year)
		q.SQL("SELECT COUNT(T1.{prescription.prescription_id}) FROM {prescription} AS T1 INNER JOIN {admission} AS T2 ON T1.{prescription.admission_id} = T2.{admission.admission_id} INNER JOIN {doctor} AS T3 ON T2.{admission.doctor_id} = T3.{doctor.doctor_id} INNER JOIN {department} AS T4 ON T3.{doctor.department_id} = T4.{department.department_id} WHERE T4.{department.department_name} = ? AND T1.{prescription.drug_name} = ? AND strftime('%Y', T2.{admission.admit_date}) = ?", dept, drug, year)
	}},
	{"hospital/doctor_of_last_admission", Challenging, func(q *candidate) {
		first, last, full := q.Person("patient")
		q.Ask([]string{"Which doctor treated {name} during their most recent admission? Give the doctor's first and last name.", "Who was the attending doctor of {name}'s latest hospital admission? List the first and last name.", "Give the first and last name of the doctor in charge of the most recent admission of {name}."}, "name", full)
		q.Ev("most recent admission refers to MAX({admission.admit_date})")
		q.Top("T3.{doctor.first_name}, T3.{doctor.last_name}", "FROM {patient} AS T1 INNER JOIN {admission} AS T2 ON T1.{patient.patient_id} = T2.{admission.patient_id} INNER JOIN {doctor} AS T3 ON T2.{admission.doctor_id} = T3.{doctor.doctor_id} WHERE T1.{patient.first_name} = ? AND T1.{patient.last_name} = ?", "T2.{admission.admit_date}", true, first, last)
	}},
	{"hospital/gender_ratio_department", Challenging, func(q *candidate) {
		dept := q.Distinct("department.department_name")
		year := q.Year("admission.admit_date")
		q.Ask([]string{"In {year}, what was the ratio of admissions of female patients to admissions of male patients in the {dept} department?", "For the {dept} department in {year}, how many female-patient admissions were there per male-patient admission?", "Divide the number of {year} admissions of female patients by that of male patients, for the {dept} department."}, "dept", dept, "year", year)
		q.Ev("female refers to {patient.gender} = 'F'; male refers to {patient.gender} = 'M'; ratio = DIVIDE(SUM({patient.gender} = 'F'), SUM({patient.gender} = 'M')); in "+year+" refers to strftime('%Y', {admission.admit_date}) = ?", year)
		q.SQL("SELECT CAST(SUM(CASE WHEN T1.{patient.gender} = 'F' THEN 1 ELSE 0 END) AS REAL) / SUM(CASE WHEN T1.{patient.gender} = 'M' THEN 1 ELSE 0 END) FROM {patient} AS T1 INNER JOIN {admission} AS T2 ON T1.{patient.patient_id} = T2.{admission.patient_id} INNER JOIN {doctor} AS T3 ON T2.{admission.doctor_id} = T3.{doctor.doctor_id} INNER JOIN {department} AS T4 ON T3.{doctor.department_id} = T4.{department.department_id} WHERE T4.{department.department_name} = ? AND strftime('%Y', T2.{admission.admit_date}) = ?", dept, year)
	}},
}
