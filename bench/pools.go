package bench

// Value pools shared by the domains. They are plain, realistic and free of
// braces and tabs (templates and gold files rely on that). Apostrophes are
// kept on purpose ("O'Brien"): gold SQL must quote them correctly.

var femaleNames = []string{
	"Mary", "Patricia", "Jennifer", "Linda", "Elizabeth", "Barbara", "Susan", "Jessica", "Sarah", "Karen",
	"Lisa", "Nancy", "Betty", "Margaret", "Sandra", "Ashley", "Kimberly", "Emily", "Donna", "Michelle",
	"Carol", "Amanda", "Melissa", "Deborah", "Stephanie", "Rebecca", "Sharon", "Laura", "Cynthia", "Amy",
	"Angela", "Helen", "Anna", "Brenda", "Pamela", "Nicole", "Emma", "Samantha", "Katherine", "Christine",
	"Rachel", "Carolyn", "Janet", "Maria", "Olivia", "Heather", "Diane", "Julie", "Joyce", "Victoria",
	"Ruth", "Virginia", "Lauren", "Kelly", "Christina", "Joan", "Evelyn", "Judith", "Andrea", "Hannah",
	"Megan", "Cheryl", "Jacqueline", "Martha", "Madison", "Teresa", "Gloria", "Sara", "Janice", "Ann",
	"Kathryn", "Abigail", "Sophia", "Frances", "Jean", "Alice", "Judy", "Isabella", "Julia", "Grace",
	"Amber", "Denise", "Danielle", "Marilyn", "Beverly", "Charlotte", "Natalie", "Theresa", "Diana", "Brittany",
	"Priya", "Mei", "Aisha", "Fatima", "Yuki", "Ingrid", "Lucia", "Chloe", "Zoe", "Nora",
}

var maleNames = []string{
	"James", "Robert", "John", "Michael", "David", "William", "Richard", "Joseph", "Thomas", "Christopher",
	"Charles", "Daniel", "Matthew", "Anthony", "Mark", "Donald", "Steven", "Andrew", "Paul", "Joshua",
	"Kenneth", "Kevin", "Brian", "George", "Timothy", "Ronald", "Jason", "Edward", "Jeffrey", "Ryan",
	"Jacob", "Gary", "Nicholas", "Eric", "Jonathan", "Stephen", "Larry", "Justin", "Scott", "Brandon",
	"Benjamin", "Samuel", "Gregory", "Alexander", "Patrick", "Frank", "Raymond", "Jack", "Dennis", "Jerry",
	"Tyler", "Aaron", "Jose", "Adam", "Nathan", "Henry", "Zachary", "Douglas", "Peter", "Kyle",
	"Noah", "Ethan", "Jeremy", "Walter", "Christian", "Keith", "Roger", "Terry", "Austin", "Sean",
	"Gerald", "Carl", "Harold", "Dylan", "Arthur", "Lawrence", "Jordan", "Jesse", "Bryan", "Billy",
	"Bruce", "Gabriel", "Joe", "Logan", "Alan", "Juan", "Albert", "Willie", "Elijah", "Wayne",
	"Rahul", "Wei", "Omar", "Hiroshi", "Lars", "Mateo", "Luca", "Oscar", "Felix", "Hugo",
}

var lastNames = []string{
	"Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller", "Davis", "Rodriguez", "Martinez",
	"Hernandez", "Lopez", "Gonzalez", "Wilson", "Anderson", "Thomas", "Taylor", "Moore", "Jackson", "Martin",
	"Lee", "Perez", "Thompson", "White", "Harris", "Sanchez", "Clark", "Ramirez", "Lewis", "Robinson",
	"Walker", "Young", "Allen", "King", "Wright", "Scott", "Torres", "Nguyen", "Hill", "Flores",
	"Green", "Adams", "Nelson", "Baker", "Hall", "Rivera", "Campbell", "Mitchell", "Carter", "Roberts",
	"Gomez", "Phillips", "Evans", "Turner", "Diaz", "Parker", "Cruz", "Edwards", "Collins", "Reyes",
	"Stewart", "Morris", "Morales", "Murphy", "Cook", "Rogers", "Gutierrez", "Ortiz", "Morgan", "Cooper",
	"Peterson", "Bailey", "Reed", "Kelly", "Howard", "Ramos", "Kim", "Cox", "Ward", "Richardson",
	"Watson", "Brooks", "Chavez", "Wood", "James", "Bennett", "Gray", "Mendoza", "Ruiz", "Hughes",
	"Price", "Alvarez", "Castillo", "Sanders", "Patel", "Myers", "Long", "Ross", "Foster", "Jimenez",
	"Powell", "Jenkins", "Perry", "Russell", "Sullivan", "Bell", "Coleman", "Butler", "Henderson", "Barnes",
	"O'Brien", "O'Connor", "Schmidt", "Novak", "Kowalski", "Tanaka", "Chen", "Singh", "Larsen", "Dubois",
	"Rossi", "Fischer", "Haddad", "Okafor", "Silva", "Yamamoto", "Ivanova", "Murray", "Fraser", "Lindqvist",
}

// city is a place people live in; state is its US state.
type city struct {
	name, state string
}

var usCities = []city{
	{"New York", "New York"}, {"Los Angeles", "California"}, {"Chicago", "Illinois"}, {"Houston", "Texas"},
	{"Phoenix", "Arizona"}, {"Philadelphia", "Pennsylvania"}, {"San Antonio", "Texas"}, {"San Diego", "California"},
	{"Dallas", "Texas"}, {"Austin", "Texas"}, {"Jacksonville", "Florida"}, {"Columbus", "Ohio"},
	{"Charlotte", "North Carolina"}, {"Indianapolis", "Indiana"}, {"San Francisco", "California"}, {"Seattle", "Washington"},
	{"Denver", "Colorado"}, {"Nashville", "Tennessee"}, {"Boston", "Massachusetts"}, {"Portland", "Oregon"},
	{"Las Vegas", "Nevada"}, {"Detroit", "Michigan"}, {"Memphis", "Tennessee"}, {"Louisville", "Kentucky"},
	{"Baltimore", "Maryland"}, {"Milwaukee", "Wisconsin"}, {"Albuquerque", "New Mexico"}, {"Tucson", "Arizona"},
	{"Sacramento", "California"}, {"Kansas City", "Missouri"}, {"Atlanta", "Georgia"}, {"Miami", "Florida"},
	{"Raleigh", "North Carolina"}, {"Omaha", "Nebraska"}, {"Minneapolis", "Minnesota"}, {"Tulsa", "Oklahoma"},
	{"Cleveland", "Ohio"}, {"Tampa", "Florida"}, {"Pittsburgh", "Pennsylvania"}, {"Cincinnati", "Ohio"},
	{"Salt Lake City", "Utah"}, {"Boise", "Idaho"}, {"Richmond", "Virginia"}, {"Madison", "Wisconsin"},
}

var emailDomains = []string{"gmail.com", "yahoo.com", "outlook.com", "icloud.com", "hotmail.com", "proton.me", "aol.com"}

var countries = []string{
	"United States", "Canada", "Mexico", "Brazil", "Argentina", "United Kingdom", "Ireland", "France", "Germany",
	"Spain", "Italy", "Portugal", "Netherlands", "Sweden", "Norway", "Poland", "Greece", "Turkey", "Egypt",
	"Nigeria", "South Africa", "Kenya", "India", "China", "Japan", "South Korea", "Australia", "New Zealand",
	"Chile", "Colombia",
}

var months = []string{"01", "02", "03", "04", "05", "06", "07", "08", "09", "10", "11", "12"}

// withThe puts "the" before the country names that take it in a sentence
// ("airports in the United States").
func withThe(country string) string {
	switch country {
	case "United States", "United Kingdom", "Netherlands", "United Arab Emirates":
		return "the " + country
	}
	return country
}
