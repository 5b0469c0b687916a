package schemagen

// Shared value pools: people, places and companies occur in every domain,
// so their values (not their tables) come from one place.

var firstNamesF = []string{"Mary", "Patricia", "Jennifer", "Linda", "Elizabeth", "Barbara", "Susan", "Jessica", "Sarah", "Karen",
	"Lisa", "Nancy", "Betty", "Margaret", "Sandra", "Ashley", "Kimberly", "Emily", "Donna", "Michelle", "Carol", "Amanda",
	"Melissa", "Deborah", "Stephanie", "Rebecca", "Sharon", "Laura", "Cynthia", "Kathleen", "Amy", "Angela", "Anna", "Brenda",
	"Catherine", "Katherine", "Nicole", "Samantha", "Christine", "Rachel", "Janet", "Maria", "Diane", "Julie", "Olivia", "Sophia",
	"Grace", "Chloe", "Hannah", "Zoe", "Priya", "Mei", "Fatima", "Aisha", "Lucia", "Ingrid", "Yuki", "Amara", "Elena", "Nadia"}

var firstNamesM = []string{"James", "Robert", "John", "Michael", "David", "William", "Richard", "Joseph", "Thomas", "Charles",
	"Christopher", "Daniel", "Matthew", "Anthony", "Mark", "Donald", "Steven", "Stephen", "Paul", "Andrew", "Joshua", "Kenneth",
	"Kevin", "Brian", "George", "Timothy", "Ronald", "Edward", "Jason", "Jeffrey", "Ryan", "Jacob", "Gary", "Nicholas", "Eric",
	"Jonathan", "Jon", "Larry", "Justin", "Scott", "Brandon", "Benjamin", "Samuel", "Gregory", "Frank", "Raymond", "Patrick",
	"Alexander", "Jack", "Dennis", "Tyler", "Aaron", "Jose", "Adam", "Henry", "Omar", "Hiroshi", "Raj", "Mateo", "Lars", "Kwame", "Dmitri"}

var lastNames = []string{"Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller", "Davis", "Rodriguez", "Martinez",
	"Hernandez", "Lopez", "Gonzalez", "Wilson", "Anderson", "Thomas", "Taylor", "Moore", "Jackson", "Martin", "Lee", "Perez",
	"Thompson", "White", "Harris", "Sanchez", "Clark", "Ramirez", "Lewis", "Robinson", "Walker", "Young", "Allen", "King",
	"Wright", "Scott", "Torres", "Nguyen", "Hill", "Flores", "Green", "Adams", "Nelson", "Baker", "Hall", "Rivera", "Campbell",
	"Mitchell", "Carter", "Roberts", "Patel", "Kim", "Chen", "Singh", "Okafor", "Novak", "Schmidt", "Rossi", "Tanaka", "Ivanova",
	"Murphy", "Cook", "Rogers", "Morgan", "Cooper", "Peterson", "Reed", "Bailey", "Bell", "Gomez", "Kelly", "Howard", "Ward"}

// nameVariants maps a first name to spellings of the same name, the way
// one person ends up entered twice.
var nameVariants = map[string]string{"John": "Jon", "Jon": "John", "Steven": "Stephen", "Stephen": "Steven", "Catherine": "Katherine",
	"Katherine": "Catherine", "Michael": "Micheal", "Sarah": "Sara", "Jeffrey": "Geoffrey", "Brian": "Bryan", "Mark": "Marc",
	"Eric": "Erik", "Rebecca": "Rebeca", "Ashley": "Ashleigh", "Deborah": "Debra", "Jacob": "Jakob", "Elizabeth": "Elisabeth",
	"Nicholas": "Nicolas", "Kimberly": "Kimberley", "Philip": "Phillip", "Matthew": "Mathew", "Jessica": "Jesica", "Zoe": "Zoey",
	"Thomas": "Tomas", "Anna": "Ana", "Lisa": "Liza", "Olivia": "Olivia-Rose", "Daniel": "Danial", "Gary": "Garry", "Larry": "Lary"}

// place is a city and its state.
type place struct{ city, state string }

var places = []place{{"Los Angeles", "CA"}, {"San Diego", "CA"}, {"San Jose", "CA"}, {"Sacramento", "CA"}, {"Fresno", "CA"},
	{"Houston", "TX"}, {"Dallas", "TX"}, {"Austin", "TX"}, {"San Antonio", "TX"}, {"El Paso", "TX"}, {"New York", "NY"},
	{"Buffalo", "NY"}, {"Rochester", "NY"}, {"Miami", "FL"}, {"Orlando", "FL"}, {"Tampa", "FL"}, {"Jacksonville", "FL"},
	{"Chicago", "IL"}, {"Springfield", "IL"}, {"Philadelphia", "PA"}, {"Pittsburgh", "PA"}, {"Columbus", "OH"}, {"Cleveland", "OH"},
	{"Cincinnati", "OH"}, {"Atlanta", "GA"}, {"Savannah", "GA"}, {"Seattle", "WA"}, {"Spokane", "WA"}, {"Portland", "OR"},
	{"Eugene", "OR"}, {"Denver", "CO"}, {"Boulder", "CO"}, {"Phoenix", "AZ"}, {"Tucson", "AZ"}, {"Boston", "MA"},
	{"Worcester", "MA"}, {"Detroit", "MI"}, {"Grand Rapids", "MI"}, {"Minneapolis", "MN"}, {"Saint Paul", "MN"},
	{"Nashville", "TN"}, {"Memphis", "TN"}, {"Charlotte", "NC"}, {"Raleigh", "NC"}, {"Las Vegas", "NV"}, {"Reno", "NV"},
	{"Salt Lake City", "UT"}, {"Baltimore", "MD"}, {"Milwaukee", "WI"}, {"Madison", "WI"}, {"Kansas City", "MO"}, {"St. Louis", "MO"},
	{"Albuquerque", "NM"}, {"Omaha", "NE"}, {"Boise", "ID"}, {"Anchorage", "AK"}, {"Honolulu", "HI"}, {"Richmond", "VA"}}

var stateNames = map[string]string{"CA": "California", "TX": "Texas", "NY": "New York", "FL": "Florida", "IL": "Illinois",
	"PA": "Pennsylvania", "OH": "Ohio", "GA": "Georgia", "WA": "Washington", "OR": "Oregon", "CO": "Colorado", "AZ": "Arizona",
	"MA": "Massachusetts", "MI": "Michigan", "MN": "Minnesota", "TN": "Tennessee", "NC": "North Carolina", "NV": "Nevada",
	"UT": "Utah", "MD": "Maryland", "WI": "Wisconsin", "MO": "Missouri", "NM": "New Mexico", "NE": "Nebraska", "ID": "Idaho",
	"AK": "Alaska", "HI": "Hawaii", "VA": "Virginia"}

var companyStems = []string{"Acme", "Apex", "Summit", "Pioneer", "Northwind", "Bluewater", "Redwood", "Silverline", "Ironclad",
	"Keystone", "Evergreen", "Horizon", "Granite", "Beacon", "Crescent", "Falcon", "Harbor", "Liberty", "Meridian", "Orion",
	"Pinnacle", "Quantum", "Riverside", "Sterling", "Titan", "Vanguard", "Westfield", "Zenith", "Atlas", "Cobalt", "Delta",
	"Everest", "Frontier", "Glacier", "Highland", "Juniper", "Lakeside", "Maple", "Nova", "Oakridge", "Prairie", "Sequoia",
	"Trident", "Unity", "Vertex", "Willow", "Aurora", "Brightstar", "Cascade", "Dominion", "Emerald", "Fairview", "Golden Gate"}

var companySuffixes = []string{"Corp", "Inc", "LLC", "Ltd", "Group", "Partners", "& Co", "Holdings", "Industries", "Services"}

// companyVariants are the spellings of a suffix that make near-duplicates
// ("Acme Corp" / "Acme Corporation").
var companyVariants = map[string]string{"Corp": "Corporation", "Inc": "Incorporated", "LLC": "L.L.C.", "Ltd": "Limited",
	"Group": "Grp", "Partners": "Partners LLP", "& Co": "and Company", "Holdings": "Holding", "Industries": "Ind.", "Services": "Svcs"}

var phoneFormats = []string{"(%03d) %03d-%04d", "%03d-%03d-%04d", "%03d.%03d.%04d"}

// abbrevs shortens words for abbreviated names (pt_adm_dt). Words not here
// lose their inner vowels.
var abbrevs = map[string]string{"patient": "pt", "admission": "adm", "date": "dt", "amount": "amt", "customer": "cust",
	"segment": "seg", "code": "cd", "number": "num", "quantity": "qty", "description": "desc", "department": "dept",
	"employee": "emp", "identifier": "id", "address": "addr", "account": "acct", "transaction": "txn", "price": "prc",
	"total": "tot", "average": "avg", "category": "cat", "status": "stat", "type": "typ", "name": "nm", "first": "fst",
	"last": "lst", "birth": "brth", "count": "cnt", "product": "prod", "order": "ord", "organization": "org", "manager": "mgr",
	"salary": "sal", "start": "strt", "end": "end", "year": "yr", "month": "mo", "minutes": "min", "hours": "hrs",
	"percent": "pct", "rate": "rt", "weight": "wt", "height": "ht", "length": "len", "distance": "dist", "capacity": "cap",
	"reference": "ref", "registration": "reg", "license": "lic", "vehicle": "veh", "student": "stu", "teacher": "tchr",
	"course": "crs", "grade": "grd", "score": "scr", "member": "mbr", "membership": "mbrshp", "payment": "pmt", "invoice": "inv",
	"balance": "bal", "location": "loc", "warehouse": "whse", "shipment": "shpmt", "supplier": "supp", "vendor": "vnd",
	"schedule": "sched", "flight": "flt", "passenger": "pax", "booking": "bkg", "reservation": "resv", "phone": "ph",
	"email": "eml", "city": "cty", "state": "st", "country": "ctry", "sex": "sx", "policy": "pol", "claim": "clm",
	"premium": "prem", "doctor": "dr", "physician": "phys", "prescription": "rx", "medication": "med", "dose": "dose",
	"discount": "disc", "revenue": "rev", "budget": "bdgt", "cost": "cst", "fee": "fee", "contract": "cntrct",
	"project": "proj", "season": "ssn", "team": "tm", "player": "plyr", "game": "gm", "match": "mtch", "points": "pts",
	"station": "stn", "reading": "rdg", "temperature": "temp", "pressure": "pres", "active": "actv", "flag": "flg",
	"volume": "vol", "population": "pop", "production": "prd", "manufacturer": "mfr", "inspection": "insp", "result": "res"}
