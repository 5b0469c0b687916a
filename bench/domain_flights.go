package bench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// Flights: airports, airlines, scheduled flights, passengers and bookings.

type airportInfo struct {
	code, name, city, country string
	lat, lon                  float64
}

var airports = []airportInfo{
	{"JFK", "John F. Kennedy International Airport", "New York", "United States", 40.64, -73.78},
	{"LAX", "Los Angeles International Airport", "Los Angeles", "United States", 33.94, -118.41},
	{"ORD", "O'Hare International Airport", "Chicago", "United States", 41.98, -87.90},
	{"ATL", "Hartsfield-Jackson Atlanta International Airport", "Atlanta", "United States", 33.64, -84.43},
	{"DFW", "Dallas Fort Worth International Airport", "Dallas", "United States", 32.90, -97.04},
	{"DEN", "Denver International Airport", "Denver", "United States", 39.86, -104.67},
	{"SFO", "San Francisco International Airport", "San Francisco", "United States", 37.62, -122.38},
	{"SEA", "Seattle-Tacoma International Airport", "Seattle", "United States", 47.45, -122.31},
	{"MIA", "Miami International Airport", "Miami", "United States", 25.80, -80.29},
	{"BOS", "Logan International Airport", "Boston", "United States", 42.37, -71.01},
	{"YYZ", "Toronto Pearson International Airport", "Toronto", "Canada", 43.68, -79.63},
	{"YVR", "Vancouver International Airport", "Vancouver", "Canada", 49.19, -123.18},
	{"MEX", "Mexico City International Airport", "Mexico City", "Mexico", 19.44, -99.07},
	{"GRU", "Sao Paulo Guarulhos International Airport", "Sao Paulo", "Brazil", -23.43, -46.47},
	{"EZE", "Ministro Pistarini International Airport", "Buenos Aires", "Argentina", -34.82, -58.54},
	{"LHR", "Heathrow Airport", "London", "United Kingdom", 51.47, -0.45},
	{"MAN", "Manchester Airport", "Manchester", "United Kingdom", 53.35, -2.27},
	{"CDG", "Charles de Gaulle Airport", "Paris", "France", 49.01, 2.55},
	{"NCE", "Nice Cote d'Azur Airport", "Nice", "France", 43.66, 7.21},
	{"FRA", "Frankfurt Airport", "Frankfurt", "Germany", 50.03, 8.56},
	{"MUC", "Munich Airport", "Munich", "Germany", 48.35, 11.79},
	{"AMS", "Amsterdam Airport Schiphol", "Amsterdam", "Netherlands", 52.31, 4.76},
	{"MAD", "Adolfo Suarez Madrid-Barajas Airport", "Madrid", "Spain", 40.47, -3.56},
	{"BCN", "Barcelona-El Prat Airport", "Barcelona", "Spain", 41.30, 2.08},
	{"FCO", "Leonardo da Vinci-Fiumicino Airport", "Rome", "Italy", 41.80, 12.25},
	{"LIS", "Humberto Delgado Airport", "Lisbon", "Portugal", 38.77, -9.13},
	{"DUB", "Dublin Airport", "Dublin", "Ireland", 53.42, -6.27},
	{"IST", "Istanbul Airport", "Istanbul", "Turkey", 41.26, 28.74},
	{"DXB", "Dubai International Airport", "Dubai", "United Arab Emirates", 25.25, 55.36},
	{"DEL", "Indira Gandhi International Airport", "Delhi", "India", 28.56, 77.10},
	{"BOM", "Chhatrapati Shivaji Maharaj International Airport", "Mumbai", "India", 19.09, 72.87},
	{"SIN", "Singapore Changi Airport", "Singapore", "Singapore", 1.36, 103.99},
	{"HKG", "Hong Kong International Airport", "Hong Kong", "China", 22.31, 113.92},
	{"PEK", "Beijing Capital International Airport", "Beijing", "China", 40.08, 116.58},
	{"NRT", "Narita International Airport", "Tokyo", "Japan", 35.77, 140.39},
	{"KIX", "Kansai International Airport", "Osaka", "Japan", 34.43, 135.23},
	{"ICN", "Incheon International Airport", "Seoul", "South Korea", 37.46, 126.44},
	{"SYD", "Sydney Kingsford Smith Airport", "Sydney", "Australia", -33.94, 151.18},
	{"MEL", "Melbourne Airport", "Melbourne", "Australia", -37.67, 144.84},
	{"JNB", "O. R. Tambo International Airport", "Johannesburg", "South Africa", -26.14, 28.25},
}

type airlineInfo struct {
	name, code, country string
	founded             int
}

var airlinesPool = []airlineInfo{
	{"Skyward Airways", "SK", "United States", 1962},
	{"Northern Star Air", "NS", "Canada", 1987},
	{"Atlantica", "AT", "Portugal", 1971},
	{"Pacific Crest Airlines", "PC", "Australia", 1994},
	{"Meridian Air", "MR", "United Kingdom", 1958},
	{"Aurora Jet", "AJ", "Germany", 2001},
	{"Sunline Airways", "SL", "Spain", 1989},
	{"Crescent Airlines", "CR", "Turkey", 1966},
	{"Lotus Air", "LT", "India", 2005},
	{"Condor Sur", "CS", "Argentina", 1978},
	{"Kestrel Airlines", "KE", "Japan", 1952},
	{"Blue Harbor Air", "BH", "Singapore", 1999},
	{"Alpine Wings", "AW", "France", 2010},
	{"Coral Sky", "CY", "Mexico", 1983},
}

var seatClasses = []string{"economy", "premium economy", "business", "first"}

// classText names a seat class in questions: "first bookings" would read as
// the earliest bookings, "first class bookings" cannot.
var classText = map[string]string{"economy": "economy class", "premium economy": "premium economy", "business": "business class", "first": "first class"}

func flightsDomain() *domain {
	return &domain{
		name: "flights", devName: "airways",
		title:    "air travel: airports, airlines, scheduled flights with delays, passengers and their bookings",
		tables:   flightsTables,
		populate: populateFlights,
		families: flightsFamilies,
	}
}

var flightsTables = []table{
	{name: "airport", dev: "airfield", pk: []string{"airport_code"}, cols: []column{
		{name: "airport_code", dev: "iata_code", typ: "text", desc: "three-letter IATA code of the airport", values: "e.g. 'JFK'"},
		{name: "airport_name", dev: "airfield_name", typ: "text", desc: "full name of the airport"},
		{name: "city", dev: "served_city", typ: "text", desc: "city the airport serves"},
		{name: "country", dev: "nation", typ: "text", desc: "country the airport is in"},
	}},
	{name: "airline", dev: "carrier", pk: []string{"airline_id"}, cols: []column{
		{name: "airline_id", dev: "carrier_id", typ: "integer", desc: "unique id of the airline"},
		{name: "airline_name", dev: "carrier_name", typ: "text", desc: "name of the airline"},
		{name: "home_country", dev: "base_country", typ: "text", desc: "country where the airline is based"},
		{name: "founded_year", dev: "year_founded", typ: "integer", desc: "year the airline was founded"},
	}},
	{name: "flight", dev: "flight_leg", pk: []string{"flight_id"}, cols: []column{
		{name: "flight_id", dev: "leg_id", typ: "integer", desc: "unique id of one scheduled departure"},
		{name: "flight_number", dev: "flight_code", typ: "text", desc: "published flight number", values: "airline code and number, e.g. 'SK1234'; the same number flies the same route on many dates"},
		{name: "airline_id", dev: "carrier_id", typ: "integer", desc: "airline operating the flight", ref: "airline.airline_id"},
		{name: "origin_code", dev: "departure_airport", typ: "text", desc: "airport the flight departs from", ref: "airport.airport_code"},
		{name: "destination_code", dev: "arrival_airport", typ: "text", desc: "airport the flight arrives at", ref: "airport.airport_code"},
		{name: "departure_time", dev: "departs_at", typ: "datetime", desc: "scheduled departure, local time", values: "YYYY-MM-DD HH:MM"},
		{name: "distance_km", dev: "distance", typ: "integer", desc: "great-circle distance of the route in kilometres"},
		{name: "status", dev: "flight_status", typ: "text", desc: "how the flight operated", values: "'on time', 'delayed' or 'cancelled'"},
		{name: "delay_minutes", dev: "minutes_late", typ: "integer", desc: "departure delay in minutes", values: "0 unless the status is 'delayed'"},
	}},
	{name: "passenger", dev: "traveler", pk: []string{"passenger_id"}, cols: []column{
		{name: "passenger_id", dev: "traveler_id", typ: "integer", desc: "unique id of the passenger"},
		{name: "first_name", dev: "given_name", typ: "text", desc: "the passenger's first name"},
		{name: "last_name", dev: "surname", typ: "text", desc: "the passenger's last name"},
		{name: "nationality", dev: "citizenship", typ: "text", desc: "country of the passenger's passport"},
		{name: "birth_date", dev: "date_of_birth", typ: "date", desc: "the passenger's date of birth", values: "YYYY-MM-DD"},
	}},
	{name: "booking", dev: "reservation", pk: []string{"booking_id"}, cols: []column{
		{name: "booking_id", dev: "reservation_id", typ: "integer", desc: "unique id of the booking"},
		{name: "flight_id", dev: "leg_id", typ: "integer", desc: "the booked flight", ref: "flight.flight_id"},
		{name: "passenger_id", dev: "traveler_id", typ: "integer", desc: "the passenger who booked", ref: "passenger.passenger_id"},
		{name: "seat_class", dev: "cabin", typ: "text", desc: "cabin class", values: "'economy', 'premium economy', 'business' or 'first'"},
		{name: "fare", dev: "price_paid", typ: "real", desc: "price paid for the ticket in US dollars"},
		{name: "booking_date", dev: "booked_on", typ: "date", desc: "date the booking was made", values: "YYYY-MM-DD"},
	}},
}

func greatCircleKm(a, b airportInfo) int {
	rad := math.Pi / 180
	dlat, dlon := (b.lat-a.lat)*rad, (b.lon-a.lon)*rad
	h := math.Sin(dlat/2)*math.Sin(dlat/2) + math.Cos(a.lat*rad)*math.Cos(b.lat*rad)*math.Sin(dlon/2)*math.Sin(dlon/2)
	return int(math.Round(2 * 6371 * math.Asin(math.Sqrt(h))))
}

func populateFlights(b *builder, r *rand.Rand) {
	aps := subset(r, airports, 30)
	for _, a := range aps {
		b.add("airport", a.code, a.name, a.city, a.country)
	}
	als := subset(r, airlinesPool, 10)
	for i, a := range als {
		b.add("airline", i+1, a.name, a.country, a.founded)
	}
	type route struct {
		airline, from, to, number, dist int
	}
	var routes []route
	seen := map[[3]int]bool{}
	used := map[string]bool{}
	nRoutes := b.count(220, 60)
	apW := newWeighted(len(aps), 0.6)
	for tries := 0; len(routes) < nRoutes && tries < nRoutes*20; tries++ {
		al := r.IntN(len(als))
		from, to := apW.draw(r), apW.draw(r)
		if from == to || seen[[3]int{al, from, to}] {
			continue
		}
		num := 100 + r.IntN(9800)
		fn := fmt.Sprintf("%s%d", als[al].code, num)
		if used[fn] {
			continue
		}
		seen[[3]int{al, from, to}] = true
		used[fn] = true
		routes = append(routes, route{al, from, to, num, greatCircleKm(aps[from], aps[to])})
	}
	routeW := newWeighted(len(routes), 0.5)
	nFlights := b.count(3000, 150)
	type flight struct {
		dist   int
		depart time.Time
	}
	flights := make([]flight, nFlights)
	for f := range nFlights {
		rt := routes[routeW.draw(r)]
		dep := dateBetween(r, day(2022, 1, 1), day(2024, 12, 31)).Add(time.Duration(5*60+r.IntN(18*12)*5) * time.Minute)
		status, delay := "on time", 0
		switch x := r.Float64(); {
		case x < 0.05:
			status = "cancelled"
		case x < 0.27:
			status, delay = "delayed", 15+int(r.ExpFloat64()*50)
		}
		flights[f] = flight{rt.dist, dep}
		b.add("flight", f+1, fmt.Sprintf("%s%d", als[rt.airline].code, rt.number), rt.airline+1, aps[rt.from].code, aps[rt.to].code, fmtDateTime(dep), rt.dist, status, delay)
	}
	last := newSkewed(r, lastNames, 0.6)
	nats := newSkewed(r, countries, 1.0)
	nPas := b.count(2500, 100)
	for p := range nPas {
		pp := newPerson(r, last)
		b.add("passenger", p+1, pp.first, pp.last, nats.draw(r), fmtDate(dateBetween(r, day(1940, 1, 1), day(2010, 12, 31))))
	}
	pasW := newWeighted(nPas, 0.4)
	pasOrder := shuffled(r, seq(nPas))
	nBook := b.count(12000, 400)
	booked := map[[2]int]bool{}
	id := 0
	for range nBook {
		f := r.IntN(nFlights)
		p := pasOrder[pasW.draw(r)]
		if booked[[2]int{f, p}] {
			continue
		}
		booked[[2]int{f, p}] = true
		cls := pickWeighted(r, []float64{75, 10, 12, 3})
		rate := []float64{0.09, 0.14, 0.32, 0.55}[cls]
		fare := cents(math.Max(49, float64(flights[f].dist)*rate*uniform(r, 0.7, 1.5)))
		when := flights[f].depart.AddDate(0, 0, -(1 + r.IntN(150)))
		id++
		b.add("booking", id, f+1, p+1, seatClasses[cls], fare, fmtDate(when))
	}
}

var flightsFamilies = []family{
	{"flights/airports_in_country", Simple, func(q *candidate) {
		country := q.Distinct("airport.country")
		if q.Coin() {
			q.Ask([]string{"List the names of the airports located in {c}.", "Which airports in the database are in {c}? Give their names.", "Give the name of every airport in {c}."}, "c", withThe(country))
			q.SQL("SELECT {airport.airport_name} FROM {airport} WHERE {airport.country} = ?", country)
		} else {
			q.Ask([]string{"What are the IATA codes of the airports in {c}?", "List the airport codes of all airports located in {c}.", "Give the three-letter code of each airport in {c}."}, "c", withThe(country))
			q.SQL("SELECT {airport.airport_code} FROM {airport} WHERE {airport.country} = ?", country)
		}
	}},
	{"flights/departures_month", Simple, func(q *candidate) {
		code := q.Distinct("flight.origin_code")
		ym := q.Month("flight.departure_time")
		q.Ask([]string{"How many flights were scheduled to depart from {code} in {month}?", "Count the flights scheduled to leave {code} during {month}.", "What is the number of scheduled departures from the airport {code} in {month}?"}, "code", code, "month", monthName(ym))
		q.Ev("depart from "+code+" refers to {flight.origin_code} = ?; in "+monthName(ym)+" refers to strftime('%Y-%m', {flight.departure_time}) = ?", code, ym)
		q.SQL("SELECT COUNT(*) FROM {flight} WHERE {flight.origin_code} = ? AND strftime('%Y-%m', {flight.departure_time}) = ?", code, ym)
	}},
	{"flights/long_delays", Simple, func(q *candidate) {
		year := q.Year("flight.departure_time")
		n := []int{30, 60, 90, 120, 180}[q.Intn(5)]
		code := q.Distinct("flight.origin_code")
		q.Ask([]string{"How many flights departing from {code} in {year} were delayed by more than {n} minutes?", "Count the {year} departures from {code} with a delay of over {n} minutes.", "In {year}, how many flights out of {code} left more than {n} minutes late?"}, "year", year, "n", itoa(n), "code", code)
		q.Ev("in "+year+" refers to strftime('%Y', {flight.departure_time}) = ?", year)
		q.SQL("SELECT COUNT(*) FROM {flight} WHERE {flight.origin_code} = ? AND strftime('%Y', {flight.departure_time}) = ? AND {flight.delay_minutes} > ?", code, year, n)
	}},
	{"flights/cancelled_from", Simple, func(q *candidate) {
		code := q.Distinct("flight.origin_code")
		year := q.Year("flight.departure_time")
		q.Ask([]string{"How many flights scheduled to depart from {code} in {year} were cancelled?", "Count the cancelled {year} flights whose origin was {code}.", "What is the number of cancelled departures from {code} in {year}?"}, "code", code, "year", year)
		q.Ev("cancelled refers to {flight.status} = 'cancelled'; in "+year+" refers to strftime('%Y', {flight.departure_time}) = ?", year)
		q.SQL("SELECT COUNT(*) FROM {flight} WHERE {flight.origin_code} = ? AND {flight.status} = 'cancelled' AND strftime('%Y', {flight.departure_time}) = ?", code, year)
	}},
	{"flights/farthest_destination", Simple, func(q *candidate) {
		code := q.Distinct("flight.origin_code")
		far := q.Coin()
		if far {
			q.Ask([]string{"Which destination airport is farthest from {code} among flights departing from {code}? Give its code.", "Of all flights out of {code}, which one flies the longest distance? Give the destination airport code.", "Give the code of the most distant airport that has a flight from {code}."}, "code", code)
		} else {
			q.Ask([]string{"Which destination airport is closest to {code} among flights departing from {code}? Give its code.", "Of all flights out of {code}, which one flies the shortest distance? Give the destination airport code.", "Give the code of the nearest airport that has a flight from {code}."}, "code", code)
		}
		dir := "ASC"
		if far {
			dir = "DESC"
		}
		q.SQL("SELECT {flight.destination_code} FROM {flight} WHERE {flight.origin_code} = ? ORDER BY {flight.distance_km} "+dir+" LIMIT 1", code)
		q.Tie("SELECT {flight.distance_km} FROM {flight} WHERE {flight.origin_code} = ? GROUP BY {flight.destination_code} ORDER BY {flight.distance_km} "+dir+" LIMIT 2", code)
	}},
	{"flights/airlines_founded", Simple, func(q *candidate) {
		year := q.DistinctInt("airline.founded_year")
		if q.Coin() {
			q.Ask([]string{"List the names of the airlines founded before {year}.", "Which airlines were founded earlier than {year}? Give their names.", "Give the name of every airline whose founding year is before {year}."}, "year", itoa(int(year)))
			q.SQL("SELECT {airline.airline_name} FROM {airline} WHERE {airline.founded_year} < ?", year)
		} else {
			q.Ask([]string{"List the names of the airlines founded after {year}.", "Which airlines were founded later than {year}? Give their names.", "Give the name of every airline whose founding year is after {year}."}, "year", itoa(int(year)))
			q.SQL("SELECT {airline.airline_name} FROM {airline} WHERE {airline.founded_year} > ?", year)
		}
	}},
	{"flights/passengers_nationality", Simple, func(q *candidate) {
		nat := q.Distinct("passenger.nationality")
		year := q.Year("passenger.birth_date")
		q.Ask([]string{"How many passengers who are citizens of {nat} were born before {year}?", "Count the passengers holding a passport from {nat} who were born earlier than {year}.", "What is the number of passengers whose passport country is {nat} and whose birth year is before {year}?"}, "nat", withThe(nat), "year", year)
		q.Ev("born before "+year+" refers to strftime('%Y', {passenger.birth_date}) < ?", year)
		q.SQL("SELECT COUNT(*) FROM {passenger} WHERE {passenger.nationality} = ? AND strftime('%Y', {passenger.birth_date}) < ?", nat, year)
	}},
	{"flights/avg_fare_class", Simple, func(q *candidate) {
		cls := q.Choose(seatClasses...)
		year := q.Year("booking.booking_date")
		q.Ask([]string{"What was the average fare of {cls} bookings made in {year}?", "On average, how much did a {cls} ticket booked in {year} cost?", "Calculate the mean fare paid for {cls} seats booked during {year}."}, "cls", classText[cls], "year", year)
		q.Ev(classText[cls]+" refers to {booking.seat_class} = ?; in "+year+" refers to strftime('%Y', {booking.booking_date}) = ?", cls, year)
		q.SQL("SELECT AVG({booking.fare}) FROM {booking} WHERE {booking.seat_class} = ? AND strftime('%Y', {booking.booking_date}) = ?", cls, year)
	}},
	{"flights/bookings_month", Simple, func(q *candidate) {
		cls := q.Choose(seatClasses...)
		ym := q.Month("booking.booking_date")
		q.Ask([]string{"How many {cls} bookings were made in {month}?", "Count the bookings in {cls} made during {month}.", "What is the number of {cls} tickets booked in {month}?"}, "cls", classText[cls], "month", monthName(ym))
		q.Ev(classText[cls]+" refers to {booking.seat_class} = ?; in "+monthName(ym)+" refers to strftime('%Y-%m', {booking.booking_date}) = ?", cls, ym)
		q.SQL("SELECT COUNT(*) FROM {booking} WHERE {booking.seat_class} = ? AND strftime('%Y-%m', {booking.booking_date}) = ?", cls, ym)
	}},
	{"flights/departure_time", Simple, func(q *candidate) {
		r := q.Pick("SELECT {flight.flight_number}, date({flight.departure_time}) FROM {flight} GROUP BY {flight.flight_number}, date({flight.departure_time}) HAVING COUNT(*) = 1 ORDER BY 1, 2")
		fn, d := r.S(0), r.S(1)
		if q.Coin() {
			q.Ask([]string{"At what time was flight {fn} scheduled to depart on {date}? Give the full departure time.", "Give the scheduled departure time of flight {fn} on {date}.", "When was flight {fn} scheduled to leave on {date}? Give the departure date and time."}, "fn", fn, "date", longDate(d))
			q.SQL("SELECT {flight.departure_time} FROM {flight} WHERE {flight.flight_number} = ? AND date({flight.departure_time}) = ?", fn, d)
		} else {
			q.Ask([]string{"What was the status of flight {fn} on {date}?", "How did flight {fn} operate on {date}: on time, delayed or cancelled?", "Give the status of flight {fn} departing on {date}."}, "fn", fn, "date", longDate(d))
			q.SQL("SELECT {flight.status} FROM {flight} WHERE {flight.flight_number} = ? AND date({flight.departure_time}) = ?", fn, d)
		}
		q.Ev("on "+longDate(d)+" refers to date({flight.departure_time}) = ?", d)
		q.One()
	}},
	{"flights/passenger_lookup", Simple, func(q *candidate) {
		first, last, full := q.Person("passenger")
		q.Ask([]string{"What is the nationality of the passenger {name}?", "Which country's passport does passenger {name} hold?", "Give the nationality of {name}, a passenger."}, "name", full)
		q.SQL("SELECT {passenger.nationality} FROM {passenger} WHERE {passenger.first_name} = ? AND {passenger.last_name} = ?", first, last)
		q.One()
	}},

	{"flights/airline_flights_year", Moderate, func(q *candidate) {
		al := q.Distinct("airline.airline_name")
		year := q.Year("flight.departure_time")
		q.Ask([]string{"How many departures did {al} have scheduled in {year}?", "Count the scheduled {al} departures in {year}, each dated departure once.", "What is the number of scheduled departures {al} had in {year}?"}, "al", al, "year", year)
		q.Ev("a departure is one row of {flight}, one flight number on one date; in "+year+" refers to strftime('%Y', {flight.departure_time}) = ?", year)
		q.SQL("SELECT COUNT(T2.{flight.flight_id}) FROM {airline} AS T1 INNER JOIN {flight} AS T2 ON T1.{airline.airline_id} = T2.{flight.airline_id} WHERE T1.{airline.airline_name} = ? AND strftime('%Y', T2.{flight.departure_time}) = ?", al, year)
	}},
	{"flights/bookings_of_passenger", Moderate, func(q *candidate) {
		first, last, full := q.Person("passenger")
		if q.Coin() {
			q.Ask([]string{"How many bookings has {name} made?", "Count the bookings of the passenger {name}.", "What is the number of flights booked by {name}?"}, "name", full)
			q.SQL("SELECT COUNT(T2.{booking.booking_id}) FROM {passenger} AS T1 INNER JOIN {booking} AS T2 ON T1.{passenger.passenger_id} = T2.{booking.passenger_id} WHERE T1.{passenger.first_name} = ? AND T1.{passenger.last_name} = ?", first, last)
		} else {
			q.Ask([]string{"How much has {name} paid in total for bookings?", "What is the total fare paid by the passenger {name} across all bookings?", "Calculate the sum of the fares of all bookings by {name}."}, "name", full)
			q.SQL("SELECT SUM(T2.{booking.fare}) FROM {passenger} AS T1 INNER JOIN {booking} AS T2 ON T1.{passenger.passenger_id} = T2.{booking.passenger_id} WHERE T1.{passenger.first_name} = ? AND T1.{passenger.last_name} = ?", first, last)
		}
	}},
	{"flights/most_delayed_airline", Moderate, func(q *candidate) {
		year := q.Year("flight.departure_time")
		code := q.Distinct("flight.origin_code")
		q.Ask([]string{"Which airline had the most delayed flights departing from {code} in {year}?", "In {year}, which airline's flights out of {code} were delayed most often? Give the airline name.", "Name the airline with the highest number of delayed departures from {code} in {year}."}, "year", year, "code", code)
		q.Ev("delayed refers to {flight.status} = 'delayed'; in "+year+" refers to strftime('%Y', {flight.departure_time}) = ?", year)
		q.Top("T1.{airline.airline_name}", "FROM {airline} AS T1 INNER JOIN {flight} AS T2 ON T1.{airline.airline_id} = T2.{flight.airline_id} WHERE T2.{flight.status} = 'delayed' AND T2.{flight.origin_code} = ? AND strftime('%Y', T2.{flight.departure_time}) = ? GROUP BY T1.{airline.airline_id}", "COUNT(T2.{flight.flight_id})", true, code, year)
	}},
	{"flights/avg_delay_airline", Moderate, func(q *candidate) {
		al := q.Distinct("airline.airline_name")
		year := q.Year("flight.departure_time")
		q.Ask([]string{"What was the average delay, in minutes, of {al}'s delayed flights in {year}?", "Among {al} flights that were delayed in {year}, what was the mean delay in minutes?", "Calculate the average number of minutes late of delayed {al} flights in {year}."}, "al", al, "year", year)
		q.Ev("delayed refers to {flight.status} = 'delayed'; in "+year+" refers to strftime('%Y', {flight.departure_time}) = ?", year)
		q.SQL("SELECT AVG(T2.{flight.delay_minutes}) FROM {airline} AS T1 INNER JOIN {flight} AS T2 ON T1.{airline.airline_id} = T2.{flight.airline_id} WHERE T1.{airline.airline_name} = ? AND T2.{flight.status} = 'delayed' AND strftime('%Y', T2.{flight.departure_time}) = ?", al, year)
	}},
	{"flights/frequent_flyers", Moderate, func(q *candidate) {
		counts := q.All("SELECT COUNT(*) AS n FROM {booking} GROUP BY {booking.passenger_id} ORDER BY n DESC LIMIT 25")
		if len(counts) < 5 {
			q.Skip()
			return
		}
		k := counts[2+q.Intn(len(counts)-2)].I(0)
		q.Ask([]string{"List the first and last names of passengers with more than {k} bookings.", "Which passengers have booked more than {k} flights? Give their first and last names.", "Give the first and last name of every passenger who made more than {k} bookings."}, "k", itoa(int(k)))
		q.SQL("SELECT T1.{passenger.first_name}, T1.{passenger.last_name} FROM {passenger} AS T1 INNER JOIN {booking} AS T2 ON T1.{passenger.passenger_id} = T2.{booking.passenger_id} GROUP BY T1.{passenger.passenger_id} HAVING COUNT(T2.{booking.booking_id}) > ?", k)
	}},
	{"flights/classes_of_passenger", Moderate, func(q *candidate) {
		first, last, full := q.Person("passenger")
		q.Ask([]string{"Which distinct seat classes has {name} booked?", "List each seat class the passenger {name} has booked, once.", "In which different cabin classes has {name} made bookings?"}, "name", full)
		q.SQL("SELECT DISTINCT T2.{booking.seat_class} FROM {passenger} AS T1 INNER JOIN {booking} AS T2 ON T1.{passenger.passenger_id} = T2.{booking.passenger_id} WHERE T1.{passenger.first_name} = ? AND T1.{passenger.last_name} = ?", first, last)
	}},
	{"flights/on_time_minus_delayed", Moderate, func(q *candidate) {
		code := q.Distinct("flight.origin_code")
		year := q.Year("flight.departure_time")
		q.Ask([]string{"For flights departing from {code} in {year}, how many more were on time than delayed?", "Among {year} departures from {code}, what is the number of on-time flights minus the number of delayed ones?", "How many more flights left {code} on time than late in {year}?"}, "code", code, "year", year)
		q.Ev("on time refers to {flight.status} = 'on time'; delayed refers to {flight.status} = 'delayed'; in "+year+" refers to strftime('%Y', {flight.departure_time}) = ?", year)
		q.SQL("SELECT SUM(CASE WHEN {flight.status} = 'on time' THEN 1 ELSE 0 END) - SUM(CASE WHEN {flight.status} = 'delayed' THEN 1 ELSE 0 END) FROM {flight} WHERE {flight.origin_code} = ? AND strftime('%Y', {flight.departure_time}) = ?", code, year)
	}},
	{"flights/origin_airport_name", Moderate, func(q *candidate) {
		fn := q.Distinct("flight.flight_number")
		if q.Coin() {
			q.Ask([]string{"What is the name of the airport flight {fn} departs from?", "From which airport does flight {fn} leave? Give the airport name.", "Give the name of the origin airport of flight {fn}."}, "fn", fn)
			q.SQL("SELECT DISTINCT T2.{airport.airport_name} FROM {flight} AS T1 INNER JOIN {airport} AS T2 ON T1.{flight.origin_code} = T2.{airport.airport_code} WHERE T1.{flight.flight_number} = ?", fn)
		} else {
			q.Ask([]string{"In which city does flight {fn} arrive?", "What city is the destination of flight {fn}?", "Give the city served by the arrival airport of flight {fn}."}, "fn", fn)
			q.SQL("SELECT DISTINCT T2.{airport.city} FROM {flight} AS T1 INNER JOIN {airport} AS T2 ON T1.{flight.destination_code} = T2.{airport.airport_code} WHERE T1.{flight.flight_number} = ?", fn)
		}
		q.One()
	}},

	{"flights/international_flights", Challenging, func(q *candidate) {
		al := q.Distinct("airline.airline_name")
		year := q.Year("flight.departure_time")
		q.Ask([]string{"How many international departures did {al} have scheduled in {year}?", "Count the scheduled {al} departures in {year} between airports in different countries.", "What is the number of scheduled international departures of {al} in {year}?"}, "al", al, "year", year)
		q.Ev("a departure is one row of {flight}, one flight number on one date; international refers to the country of the origin airport <> the country of the destination airport; in "+year+" refers to strftime('%Y', {flight.departure_time}) = ?", year)
		q.SQL("SELECT COUNT(T1.{flight.flight_id}) FROM {flight} AS T1 INNER JOIN {airline} AS T2 ON T1.{flight.airline_id} = T2.{airline.airline_id} INNER JOIN {airport} AS T3 ON T1.{flight.origin_code} = T3.{airport.airport_code} INNER JOIN {airport} AS T4 ON T1.{flight.destination_code} = T4.{airport.airport_code} WHERE T2.{airline.airline_name} = ? AND strftime('%Y', T1.{flight.departure_time}) = ? AND T3.{airport.country} <> T4.{airport.country}", al, year)
	}},
	{"flights/premium_share_route", Challenging, func(q *candidate) {
		r := q.Pick("SELECT T1.{flight.origin_code}, T1.{flight.destination_code} FROM {flight} AS T1 INNER JOIN {booking} AS T2 ON T1.{flight.flight_id} = T2.{booking.flight_id} GROUP BY T1.{flight.origin_code}, T1.{flight.destination_code} HAVING COUNT(*) >= 10 ORDER BY 1, 2")
		from, to := r.S(0), r.S(1)
		q.Ask([]string{"What percentage of bookings on flights from {from} to {to} were in business or first class?", "Among bookings for flights from {from} to {to}, what percent were business or first class?", "Calculate the share, as a percentage, of business- and first-class bookings on the route {from} to {to}."}, "from", from, "to", to)
		q.Ev("business or first class refers to {booking.seat_class} IN ('business', 'first'); percentage = DIVIDE(SUM({booking.seat_class} IN ('business', 'first')), COUNT({booking.booking_id})) * 100")
		q.SQL("SELECT CAST(SUM(CASE WHEN T2.{booking.seat_class} IN ('business', 'first') THEN 1 ELSE 0 END) AS REAL) * 100 / COUNT(T2.{booking.booking_id}) FROM {flight} AS T1 INNER JOIN {booking} AS T2 ON T1.{flight.flight_id} = T2.{booking.flight_id} WHERE T1.{flight.origin_code} = ? AND T1.{flight.destination_code} = ?", from, to)
	}},
	{"flights/above_avg_fare", Challenging, func(q *candidate) {
		al := q.Distinct("airline.airline_name")
		cls := q.Choose(seatClasses...)
		q.Ask([]string{"How many {cls} bookings on {al} flights cost more than the average {cls} fare across all airlines?", "Count the {cls} tickets on {al} flights whose fare exceeded the overall average {cls} fare.", "What is the number of {al} bookings in {cls} priced above the average fare of all {cls} bookings?"}, "al", al, "cls", classText[cls])
		q.Ev(classText[cls]+" refers to {booking.seat_class} = ?", cls)
		q.SQL("SELECT COUNT(T1.{booking.booking_id}) FROM {booking} AS T1 INNER JOIN {flight} AS T2 ON T1.{booking.flight_id} = T2.{flight.flight_id} INNER JOIN {airline} AS T3 ON T2.{flight.airline_id} = T3.{airline.airline_id} WHERE T3.{airline.airline_name} = ? AND T1.{booking.seat_class} = ? AND T1.{booking.fare} > (SELECT AVG({booking.fare}) FROM {booking} WHERE {booking.seat_class} = ?)", al, cls, cls)
	}},
	{"flights/favourite_destination", Challenging, func(q *candidate) {
		nat := q.Distinct("passenger.nationality")
		q.Ask([]string{"Which destination city did passengers who are citizens of {nat} book flights to most often?", "Among bookings by passengers holding a passport from {nat}, which arrival city appears most? Give the city.", "Name the destination city most frequently booked by passengers whose passport country is {nat}."}, "nat", withThe(nat))
		q.Ev("most often refers to the largest number of bookings")
		q.Top("T4.{airport.city}", "FROM {passenger} AS T1 INNER JOIN {booking} AS T2 ON T1.{passenger.passenger_id} = T2.{booking.passenger_id} INNER JOIN {flight} AS T3 ON T2.{booking.flight_id} = T3.{flight.flight_id} INNER JOIN {airport} AS T4 ON T3.{flight.destination_code} = T4.{airport.airport_code} WHERE T1.{passenger.nationality} = ? GROUP BY T4.{airport.city}", "COUNT(T2.{booking.booking_id})", true, nat)
	}},
	{"flights/cancel_rate_airline_country", Challenging, func(q *candidate) {
		r := q.Pick("SELECT DISTINCT T2.{airline.airline_name}, T3.{airport.country} FROM {flight} AS T1 INNER JOIN {airline} AS T2 ON T1.{flight.airline_id} = T2.{airline.airline_id} INNER JOIN {airport} AS T3 ON T1.{flight.origin_code} = T3.{airport.airport_code} ORDER BY 1, 2")
		al, country := r.S(0), r.S(1)
		q.Ask([]string{"What percentage of {al}'s flights departing from airports in {c} were cancelled?", "Among {al} flights leaving {c}, what percent were cancelled?", "Calculate the cancellation rate, as a percentage, of {al} departures from {c}."}, "al", al, "c", withThe(country))
		q.Ev("cancelled refers to {flight.status} = 'cancelled'; percentage = DIVIDE(SUM({flight.status} = 'cancelled'), COUNT({flight.flight_id})) * 100")
		q.SQL("SELECT CAST(SUM(CASE WHEN T1.{flight.status} = 'cancelled' THEN 1 ELSE 0 END) AS REAL) * 100 / COUNT(T1.{flight.flight_id}) FROM {flight} AS T1 INNER JOIN {airline} AS T2 ON T1.{flight.airline_id} = T2.{airline.airline_id} INNER JOIN {airport} AS T3 ON T1.{flight.origin_code} = T3.{airport.airport_code} WHERE T2.{airline.airline_name} = ? AND T3.{airport.country} = ?", al, country)
	}},
	{"flights/class_revenue_airline", Challenging, func(q *candidate) {
		al := q.Distinct("airline.airline_name")
		cls := q.Choose(seatClasses...)
		year := q.Year("flight.departure_time")
		q.Ask([]string{"What was the total fare revenue {al} earned from {cls} bookings on flights scheduled to depart in {year}?", "Sum the fares of {cls} bookings on {al} flights scheduled to depart in {year}.", "How much did passengers pay in total for {cls} seats on {al} flights scheduled to depart in {year}?"}, "al", al, "cls", classText[cls], "year", year)
		q.Ev(classText[cls]+" refers to {booking.seat_class} = ?; revenue refers to SUM({booking.fare}); departing in "+year+" refers to strftime('%Y', {flight.departure_time}) = ?", cls, year)
		q.SQL("SELECT SUM(T1.{booking.fare}) FROM {booking} AS T1 INNER JOIN {flight} AS T2 ON T1.{booking.flight_id} = T2.{flight.flight_id} INNER JOIN {airline} AS T3 ON T2.{flight.airline_id} = T3.{airline.airline_id} WHERE T3.{airline.airline_name} = ? AND T1.{booking.seat_class} = ? AND strftime('%Y', T2.{flight.departure_time}) = ?", al, cls, year)
	}},
}
