package bench

import (
	"math/rand/v2"
	"strings"
)

// Retail: an online shop's customers, products, orders and order lines.

type productLine struct {
	category string
	brands   []string
	nouns    []string
	lo, hi   float64
}

var productLines = []productLine{
	{"Electronics", []string{"Voltix", "Nexon", "Auralink", "Pixelcore"}, []string{"Headphones", "Bluetooth Speaker", "Smartwatch", "Tablet", "Laptop", "Monitor", "Webcam", "Keyboard", "Wireless Mouse", "Charger"}, 15, 1500},
	{"Home & Kitchen", []string{"Hearthline", "Casa Verde", "Kitchora"}, []string{"Blender", "Coffee Maker", "Toaster", "Knife Set", "Cookware Set", "Air Fryer", "Kettle", "Vacuum Cleaner"}, 20, 450},
	{"Sports", []string{"Stridewell", "Peakform", "Trailcrest"}, []string{"Yoga Mat", "Dumbbell Set", "Running Shoes", "Tennis Racket", "Bike Helmet", "Water Bottle", "Fitness Tracker"}, 10, 300},
	{"Toys", []string{"Playmora", "Tinytrail"}, []string{"Building Blocks", "Jigsaw Puzzle", "Doll House", "Remote Control Car", "Board Game", "Plush Bear"}, 8, 150},
	{"Beauty", []string{"Lumera", "Velvetine", "Auric"}, []string{"Face Cream", "Shampoo", "Perfume", "Lipstick", "Hair Dryer", "Sunscreen"}, 6, 140},
	{"Garden", []string{"Greenfold", "Rootwise"}, []string{"Garden Hose", "Pruning Shears", "Lawn Mower", "Planter", "Seed Kit", "Leaf Blower"}, 8, 600},
	{"Office", []string{"Deskly", "Quillmark", "Ledgerly"}, []string{"Desk Chair", "Standing Desk", "Notebook Pack", "Desk Lamp", "Stapler", "Paper Shredder"}, 5, 700},
}

var productWords = []string{"Pro", "Max", "Lite", "Plus", "Mini", "Classic", "Ultra", "Air", "Prime", "Eco", "Deluxe", "Compact", "Elite", "Sport", "Smart", "Go", "One", "Neo"}

var orderStatuses = []string{"delivered", "shipped", "pending", "cancelled", "returned"}

var paymentMethods = []string{"credit card", "debit card", "paypal", "gift card", "bank transfer"}

var paymentText = map[string]string{"credit card": "credit card", "debit card": "debit card", "paypal": "PayPal", "gift card": "gift card", "bank transfer": "bank transfer"}

var tiers = []string{"bronze", "silver", "gold"}

func retailDomain() *domain {
	return &domain{
		name: "retail", devName: "storefront",
		title:    "an online shop: customers with loyalty tiers, products by category and brand, orders and order lines",
		tables:   retailTables,
		populate: populateRetail,
		families: retailFamilies,
	}
}

var retailTables = []table{
	{name: "customer", dev: "client", pk: []string{"customer_id"}, cols: []column{
		{name: "customer_id", dev: "client_id", typ: "integer", desc: "unique id of the customer"},
		{name: "first_name", dev: "given_name", typ: "text", desc: "the customer's first name"},
		{name: "last_name", dev: "family_name", typ: "text", desc: "the customer's last name", values: "full name is first name + last name"},
		{name: "email", dev: "email_address", typ: "text", desc: "the customer's email address"},
		{name: "city", dev: "town", typ: "text", desc: "city the customer lives in"},
		{name: "state", dev: "region", typ: "text", desc: "US state the customer lives in"},
		{name: "tier", dev: "loyalty_level", typ: "text", desc: "loyalty programme tier", values: "'bronze', 'silver' or 'gold'; gold is the highest tier"},
		{name: "signup_date", dev: "joined_on", typ: "date", desc: "date the customer created an account", values: "YYYY-MM-DD"},
	}},
	{name: "product", dev: "item", pk: []string{"product_id"}, cols: []column{
		{name: "product_id", dev: "item_id", typ: "integer", desc: "unique id of the product"},
		{name: "product_name", dev: "item_name", typ: "text", desc: "name of the product"},
		{name: "category", dev: "item_category", typ: "text", desc: "product category", values: "e.g. 'Electronics', 'Home & Kitchen', 'Sports', 'Toys', 'Beauty', 'Garden', 'Office'"},
		{name: "brand", dev: "manufacturer", typ: "text", desc: "brand that makes the product"},
		{name: "unit_price", dev: "list_price", typ: "real", desc: "current price of one unit, in US dollars"},
		{name: "stock_quantity", dev: "units_in_stock", typ: "integer", desc: "units currently in stock", values: "0 means out of stock"},
	}},
	{name: "orders", dev: "purchase", pk: []string{"order_id"}, cols: []column{
		{name: "order_id", dev: "purchase_id", typ: "integer", desc: "unique id of the order"},
		{name: "customer_id", dev: "client_id", typ: "integer", desc: "the customer who placed the order", ref: "customer.customer_id"},
		{name: "order_date", dev: "purchase_date", typ: "date", desc: "date the order was placed", values: "YYYY-MM-DD"},
		{name: "status", dev: "purchase_status", typ: "text", desc: "fulfilment status", values: "'pending', 'shipped', 'delivered', 'cancelled' or 'returned'"},
		{name: "payment_method", dev: "paid_with", typ: "text", desc: "how the order was paid", values: "'credit card', 'debit card', 'paypal', 'gift card' or 'bank transfer'"},
	}},
	{name: "order_item", dev: "purchase_line", pk: []string{"order_id", "product_id"}, cols: []column{
		{name: "order_id", dev: "purchase_id", typ: "integer", desc: "the order this line belongs to", ref: "orders.order_id"},
		{name: "product_id", dev: "item_id", typ: "integer", desc: "the product ordered", ref: "product.product_id"},
		{name: "quantity", dev: "qty", typ: "integer", desc: "number of units ordered"},
		{name: "unit_price", dev: "sale_price", typ: "real", desc: "price charged per unit before discount, in US dollars"},
		{name: "discount", dev: "discount_rate", typ: "real", desc: "discount applied to the line as a fraction", values: "0.1 means 10% off; the line total is quantity * unit price * (1 - discount)"},
	}},
}

func populateRetail(b *builder, r *rand.Rand) {
	last := newSkewed(r, lastNames, 0.6)
	cities := newSkewed(r, subset(r, usCities, 30), 0.9)
	domains := newSkewed(r, emailDomains, 1.0)
	nCust := b.count(1200, 60)
	type cust struct{ signup string }
	custs := make([]cust, nCust)
	for i := range nCust {
		p := newPerson(r, last)
		c := cities.draw(r)
		tier := "bronze"
		switch x := r.Float64(); {
		case x < 0.12:
			tier = "gold"
		case x < 0.42:
			tier = "silver"
		}
		custs[i].signup = fmtDate(dateBetween(r, day(2018, 1, 1), day(2023, 12, 31)))
		b.add("customer", i+1, p.first, p.last, emailFor(p, i+1, domains.draw(r)), c.name, c.state, tier, custs[i].signup)
	}

	nProd := b.count(150, 40)
	lines := newSkewed(r, productLines, 0.5)
	seen := map[string]bool{}
	prices := make([]float64, 0, nProd)
	for len(prices) < nProd {
		l := lines.draw(r)
		name := pick(r, l.brands) + " " + pick(r, productWords) + " " + pick(r, l.nouns)
		if seen[name] {
			continue
		}
		seen[name] = true
		brand, _, _ := strings.Cut(name, " ")
		for _, br := range l.brands {
			if strings.HasPrefix(name, br+" ") {
				brand = br
			}
		}
		// Log-uniform prices: many cheap products, a few expensive ones.
		price := cents(l.lo * pow(l.hi/l.lo, r.Float64()))
		stock := r.IntN(400)
		if r.IntN(12) == 0 {
			stock = 0
		}
		prices = append(prices, price)
		b.add("product", len(prices), name, l.category, brand, price, stock)
	}

	custW := newWeighted(nCust, 0.5)
	custOrder := shuffled(r, seq(nCust))
	prodW := newWeighted(nProd, 0.7)
	prodOrder := shuffled(r, seq(nProd))
	nOrd := b.count(5000, 200)
	for o := 1; o <= nOrd; o++ {
		ci := custOrder[custW.draw(r)]
		d := dateBetween(r, parseDay(custs[ci].signup), day(2024, 12, 31))
		status := "delivered"
		switch x := r.Float64(); {
		case d.After(day(2024, 12, 20)):
			status = pick(r, []string{"pending", "shipped"})
		case x < 0.10:
			status = "cancelled"
		case x < 0.18:
			status = "returned"
		case x < 0.22:
			status = "shipped"
		}
		pay := paymentMethods[pickWeighted(r, []float64{45, 20, 20, 5, 10})]
		b.add("orders", o, ci+1, fmtDate(d), status, pay)
		n := 1 + pickWeighted(r, []float64{40, 30, 15, 10, 5})
		used := map[int]bool{}
		for range n {
			pi := prodOrder[prodW.draw(r)]
			if used[pi] {
				continue
			}
			used[pi] = true
			qty := 1 + pickWeighted(r, []float64{70, 20, 6, 2, 1, 1})
			disc := []float64{0, 0, 0, 0, 0, 0, 0.05, 0.1, 0.15, 0.2}[r.IntN(10)]
			b.add("order_item", o, pi+1, qty, prices[pi], disc)
		}
	}
}

var retailFamilies = []family{
	{"retail/customers_in_city", Simple, func(q *candidate) {
		city := q.Distinct("customer.city")
		q.Ask([]string{"How many customers live in {city}?", "What is the number of customers based in {city}?", "Count the customers whose city is {city}."}, "city", city)
		q.SQL("SELECT COUNT(*) FROM {customer} WHERE {customer.city} = ?", city)
	}},
	{"retail/tier_in_state", Simple, func(q *candidate) {
		state := q.Distinct("customer.state")
		tier := q.Choose(tiers...)
		q.Ask([]string{"How many {tier}-tier customers live in {state}?", "Count the customers in {state} whose loyalty tier is {tier}.", "What is the number of customers from {state} in the {tier} tier?"}, "tier", tier, "state", state)
		q.Ev(tier+"-tier refers to {customer.tier} = ?", tier)
		q.SQL("SELECT COUNT(*) FROM {customer} WHERE {customer.state} = ? AND {customer.tier} = ?", state, tier)
	}},
	{"retail/premium_signup_year", Simple, func(q *candidate) {
		year := q.Year("customer.signup_date")
		q.Ask([]string{"How many premium customers signed up in {year}?", "Count the premium customers who created their account in {year}.", "What is the number of premium customers whose sign-up year is {year}?"}, "year", year)
		q.Ev("premium customers refers to {customer.tier} = 'gold'; signed up in "+year+" refers to strftime('%Y', {customer.signup_date}) = ?", year)
		q.SQL("SELECT COUNT(*) FROM {customer} WHERE {customer.tier} = 'gold' AND strftime('%Y', {customer.signup_date}) = ?", year)
	}},
	{"retail/customer_email", Simple, func(q *candidate) {
		first, last, full := q.Person("customer")
		q.Ask([]string{"What is the email address of {name}?", "Give the email of the customer named {name}.", "Which email address does the customer {name} use?"}, "name", full)
		q.SQL("SELECT {customer.email} FROM {customer} WHERE {customer.first_name} = ? AND {customer.last_name} = ?", first, last)
		q.One()
	}},
	{"retail/customer_city", Simple, func(q *candidate) {
		first, last, full := q.Person("customer")
		q.Ask([]string{"Which city and state does {name} live in?", "Give the city and state of the customer {name}.", "Where does customer {name} live? Give the city and the state."}, "name", full)
		q.SQL("SELECT {customer.city}, {customer.state} FROM {customer} WHERE {customer.first_name} = ? AND {customer.last_name} = ?", first, last)
		q.One()
	}},
	{"retail/category_price_count", Simple, func(q *candidate) {
		r := q.Pick("SELECT {product.category}, {product.unit_price} FROM {product} ORDER BY 1, 2")
		cat, price := r.S(0), nice(r.F(1))
		if q.Coin() {
			q.Ask([]string{"How many {cat} products cost more than {price}?", "Count the products in the {cat} category priced above {price}.", "What is the number of {cat} products with a unit price greater than {price}?"}, "cat", cat, "price", dollars(price))
			q.SQL("SELECT COUNT(*) FROM {product} WHERE {product.category} = ? AND {product.unit_price} > ?", cat, price)
		} else {
			q.Ask([]string{"How many {cat} products cost less than {price}?", "Count the products in the {cat} category priced below {price}.", "What is the number of {cat} products with a unit price lower than {price}?"}, "cat", cat, "price", dollars(price))
			q.SQL("SELECT COUNT(*) FROM {product} WHERE {product.category} = ? AND {product.unit_price} < ?", cat, price)
		}
	}},
	{"retail/priciest_in_category", Simple, func(q *candidate) {
		cat := q.Distinct("product.category")
		desc := q.Coin()
		if desc {
			q.Ask([]string{"What is the name of the most expensive product in the {cat} category?", "Which {cat} product has the highest unit price?", "Name the {cat} product with the highest price."}, "cat", cat)
		} else {
			q.Ask([]string{"What is the name of the cheapest product in the {cat} category?", "Which {cat} product has the lowest unit price?", "Name the {cat} product with the lowest price."}, "cat", cat)
		}
		q.Top("{product.product_name}", "FROM {product} WHERE {product.category} = ?", "{product.unit_price}", desc, cat)
	}},
	{"retail/email_domain", Simple, func(q *candidate) {
		city := q.Distinct("customer.city")
		dom := q.Choose(emailDomains...)
		q.Ask([]string{"How many customers from {city} use a {dom} email address?", "Count the customers living in {city} whose email address ends with @{dom}.", "What is the number of {city} customers with an email at {dom}?"}, "city", city, "dom", dom)
		q.Ev("a "+dom+" email address refers to {customer.email} LIKE ?", "%@"+dom)
		q.SQL("SELECT COUNT(*) FROM {customer} WHERE {customer.city} = ? AND {customer.email} LIKE ?", city, "%@"+dom)
	}},
	{"retail/orders_in_month", Simple, func(q *candidate) {
		ym := q.Month("orders.order_date")
		q.Ask([]string{"How many orders were placed in {month}?", "What is the number of orders placed during {month}?", "Count the orders whose order date falls in {month}."}, "month", monthName(ym))
		q.Ev("in "+monthName(ym)+" refers to strftime('%Y-%m', {orders.order_date}) = ?", ym)
		q.SQL("SELECT COUNT(*) FROM {orders} WHERE strftime('%Y-%m', {orders.order_date}) = ?", ym)
	}},
	{"retail/status_payment", Simple, func(q *candidate) {
		status := q.Choose("delivered", "cancelled", "returned", "shipped")
		pay := q.Choose(paymentMethods...)
		q.Ask([]string{"How many orders paid by {pay} have the status {status}?", "Among orders paid with {pay}, how many have the status {status}?", "Count the orders paid by {pay} whose status is {status}."}, "pay", paymentText[pay], "status", status)
		q.Ev("paid by "+paymentText[pay]+" refers to {orders.payment_method} = ?; the status "+status+" refers to {orders.status} = ?", pay, status)
		q.SQL("SELECT COUNT(*) FROM {orders} WHERE {orders.payment_method} = ? AND {orders.status} = ?", pay, status)
	}},
	{"retail/avg_price_brand", Simple, func(q *candidate) {
		brand := q.Distinct("product.brand")
		q.Ask([]string{"What is the average unit price of {brand} products?", "On average, how much does a {brand} product cost?", "What is the mean price of the products made by {brand}?"}, "brand", brand)
		q.SQL("SELECT AVG({product.unit_price}) FROM {product} WHERE {product.brand} = ?", brand)
	}},
	{"retail/newest_customer_city", Simple, func(q *candidate) {
		city := q.Distinct("customer.city")
		desc := q.Coin()
		if desc {
			q.Ask([]string{"Which customer from {city} signed up most recently? Give the first and last name.", "Give the first and last name of the customer in {city} with the latest sign-up date.", "Who is the most recent customer to sign up in {city}? List the first and last name."}, "city", city)
		} else {
			q.Ask([]string{"Which customer from {city} signed up first? Give the first and last name.", "Give the first and last name of the customer in {city} with the earliest sign-up date.", "Who was the earliest customer to sign up in {city}? List the first and last name."}, "city", city)
		}
		q.Top("{customer.first_name}, {customer.last_name}", "FROM {customer} WHERE {customer.city} = ?", "{customer.signup_date}", desc, city)
	}},
	{"retail/low_stock", Simple, func(q *candidate) {
		cat := q.Distinct("product.category")
		n := []int{10, 20, 25, 50, 100}[q.Intn(5)]
		q.Ask([]string{"How many {cat} products have fewer than {n} units in stock?", "Count the products in the {cat} category with less than {n} units in stock.", "What is the number of {cat} products whose stock is below {n} units?"}, "cat", cat, "n", itoa(n))
		q.SQL("SELECT COUNT(*) FROM {product} WHERE {product.category} = ? AND {product.stock_quantity} < ?", cat, n)
	}},
	{"retail/out_of_stock", Simple, func(q *candidate) {
		cat := q.Distinct("product.category")
		q.Ask([]string{"List the names of the {cat} products that are out of stock.", "Which products in the {cat} category are out of stock? Give their names.", "Name every {cat} product that is currently out of stock."}, "cat", cat)
		q.Ev("out of stock refers to {product.stock_quantity} = 0")
		q.SQL("SELECT {product.product_name} FROM {product} WHERE {product.category} = ? AND {product.stock_quantity} = 0", cat)
	}},
	{"retail/name_contains", Simple, func(q *candidate) {
		word := q.Choose(productWords...)
		cat := q.Distinct("product.category")
		q.Ask([]string{"How many {cat} products have the word '{w}' in their name?", "Count the products in the {cat} category whose name contains '{w}'.", "What is the number of {cat} products with '{w}' in the product name?"}, "cat", cat, "w", word)
		q.Ev("the word '"+word+"' in their name refers to {product.product_name} LIKE ?", "% "+word+" %")
		q.SQL("SELECT COUNT(*) FROM {product} WHERE {product.category} = ? AND {product.product_name} LIKE ?", cat, "% "+word+" %")
	}},

	{"retail/orders_by_customer", Moderate, func(q *candidate) {
		first, last, full := q.Person("customer")
		q.Ask([]string{"How many orders has {name} placed?", "What is the number of orders made by the customer {name}?", "Count the orders placed by {name}."}, "name", full)
		q.SQL("SELECT COUNT(T2.{orders.order_id}) FROM {customer} AS T1 INNER JOIN {orders} AS T2 ON T1.{customer.customer_id} = T2.{orders.customer_id} WHERE T1.{customer.first_name} = ? AND T1.{customer.last_name} = ?", first, last)
	}},
	{"retail/customer_status_orders", Moderate, func(q *candidate) {
		first, last, full := q.Person("customer")
		status := q.Choose("delivered", "cancelled", "returned")
		q.Ask([]string{"How many of {name}'s orders were {status}?", "Count the {status} orders of the customer {name}.", "What is the number of orders placed by {name} that were {status}?"}, "name", full, "status", status)
		q.Ev(status+" refers to {orders.status} = ?", status)
		q.SQL("SELECT COUNT(T2.{orders.order_id}) FROM {customer} AS T1 INNER JOIN {orders} AS T2 ON T1.{customer.customer_id} = T2.{orders.customer_id} WHERE T1.{customer.first_name} = ? AND T1.{customer.last_name} = ? AND T2.{orders.status} = ?", first, last, status)
	}},
	{"retail/city_most_tier", Moderate, func(q *candidate) {
		tier := q.Choose(tiers...)
		q.Ask([]string{"Which city has the most {tier}-tier customers?", "In which city do the most customers of the {tier} tier live?", "Name the city with the highest number of {tier}-tier customers."}, "tier", tier)
		q.Ev(tier+"-tier refers to {customer.tier} = ?; the most customers refers to MAX(COUNT({customer.customer_id}))", tier)
		q.Top("{customer.city}", "FROM {customer} WHERE {customer.tier} = ? GROUP BY {customer.city}", "COUNT(*)", true, tier)
	}},
	{"retail/frequent_customers", Moderate, func(q *candidate) {
		year := q.Year("orders.order_date")
		counts := q.All("SELECT COUNT(*) AS n FROM {orders} WHERE strftime('%Y', {orders.order_date}) = ? GROUP BY {orders.customer_id} ORDER BY n DESC LIMIT 25", year)
		if len(counts) < 5 {
			q.Skip()
			return
		}
		k := counts[2+q.Intn(len(counts)-2)].I(0)
		q.Ask([]string{"List the first and last names of customers who placed more than {k} orders in {year}.", "Which customers made more than {k} orders in {year}? Give their first and last names.", "Give the first and last name of every customer with more than {k} orders in {year}."}, "k", itoa(int(k)), "year", year)
		q.Ev("in "+year+" refers to strftime('%Y', {orders.order_date}) = ?", year)
		q.SQL("SELECT T1.{customer.first_name}, T1.{customer.last_name} FROM {customer} AS T1 INNER JOIN {orders} AS T2 ON T1.{customer.customer_id} = T2.{orders.customer_id} WHERE strftime('%Y', T2.{orders.order_date}) = ? GROUP BY T1.{customer.customer_id} HAVING COUNT(T2.{orders.order_id}) > ?", year, k)
	}},
	{"retail/payment_methods_of_customer", Moderate, func(q *candidate) {
		first, last, full := q.Person("customer")
		q.Ask([]string{"List the distinct payment methods {name} has used for orders.", "Which different payment methods has the customer {name} paid with?", "What payment methods appear on {name}'s orders? List each method once."}, "name", full)
		q.SQL("SELECT DISTINCT T2.{orders.payment_method} FROM {customer} AS T1 INNER JOIN {orders} AS T2 ON T1.{customer.customer_id} = T2.{orders.customer_id} WHERE T1.{customer.first_name} = ? AND T1.{customer.last_name} = ?", first, last)
	}},
	{"retail/delivered_minus_other", Moderate, func(q *candidate) {
		year := q.Year("orders.order_date")
		pay := q.Choose(paymentMethods...)
		other := q.Choose("cancelled", "returned")
		q.Ask([]string{"Among orders paid by {pay} in {year}, how many more were delivered than {other}?", "For {year} orders paid with {pay}, what is the difference between the number of delivered and {other} orders?", "How many more {pay} orders from {year} were delivered than {other}?"}, "pay", paymentText[pay], "year", year, "other", other)
		q.Ev("paid by "+paymentText[pay]+" refers to {orders.payment_method} = ?; in "+year+" refers to strftime('%Y', {orders.order_date}) = ?; difference = SUBTRACT(SUM({orders.status} = 'delivered'), SUM({orders.status} = ?))", pay, year, other)
		q.SQL("SELECT SUM(CASE WHEN {orders.status} = 'delivered' THEN 1 ELSE 0 END) - SUM(CASE WHEN {orders.status} = ? THEN 1 ELSE 0 END) FROM {orders} WHERE {orders.payment_method} = ? AND strftime('%Y', {orders.order_date}) = ?", other, pay, year)
	}},
	{"retail/units_of_product", Moderate, func(q *candidate) {
		prod := q.Unique("product.product_name")
		q.Ask([]string{"How many units of {p} have been ordered in total?", "What is the total quantity ordered of the product {p}, across all orders?", "Across all orders, how many units of {p} were ordered?"}, "p", prod)
		q.SQL("SELECT SUM(T1.{order_item.quantity}) FROM {order_item} AS T1 INNER JOIN {product} AS T2 ON T1.{order_item.product_id} = T2.{product.product_id} WHERE T2.{product.product_name} = ?", prod)
	}},
	{"retail/orders_with_product", Moderate, func(q *candidate) {
		prod := q.Unique("product.product_name")
		q.Ask([]string{"In how many orders does {p} appear?", "How many orders contain the product {p}?", "Count the orders that include {p}."}, "p", prod)
		q.SQL("SELECT COUNT(DISTINCT T1.{order_item.order_id}) FROM {order_item} AS T1 INNER JOIN {product} AS T2 ON T1.{order_item.product_id} = T2.{product.product_id} WHERE T2.{product.product_name} = ?", prod)
	}},
	{"retail/brand_highest_avg", Moderate, func(q *candidate) {
		cat := q.Pick("SELECT {product.category} FROM {product} GROUP BY {product.category} HAVING COUNT(DISTINCT {product.brand}) > 1 ORDER BY 1").S(0)
		desc := q.Coin()
		if desc {
			q.Ask([]string{"Which brand has the highest average unit price in the {cat} category?", "In the {cat} category, which brand's products are the most expensive on average?", "Name the brand whose {cat} products have the highest average price."}, "cat", cat)
		} else {
			q.Ask([]string{"Which brand has the lowest average unit price in the {cat} category?", "In the {cat} category, which brand's products are the cheapest on average?", "Name the brand whose {cat} products have the lowest average price."}, "cat", cat)
		}
		q.Top("{product.brand}", "FROM {product} WHERE {product.category} = ? GROUP BY {product.brand}", "AVG({product.unit_price})", desc, cat)
	}},
	{"retail/last_order_status", Moderate, func(q *candidate) {
		first, last, full := q.Person("customer")
		q.Ask([]string{"What is the status of the most recent order placed by {name}?", "What status does {name}'s latest order have?", "Give the status of the last order {name} placed."}, "name", full)
		q.Ev("most recent order refers to MAX({orders.order_date})")
		q.Top("T2.{orders.status}", "FROM {customer} AS T1 INNER JOIN {orders} AS T2 ON T1.{customer.customer_id} = T2.{orders.customer_id} WHERE T1.{customer.first_name} = ? AND T1.{customer.last_name} = ?", "T2.{orders.order_date}", true, first, last)
	}},
	{"retail/revenue_payment_year", Moderate, func(q *candidate) {
		year := q.Year("orders.order_date")
		pay := q.Choose(paymentMethods...)
		q.Ask([]string{"What was the total revenue of delivered orders paid by {pay} in {year}?", "How much revenue did delivered {year} orders paid with {pay} bring in?", "Calculate the revenue from orders delivered in {year} that were paid by {pay}."}, "pay", paymentText[pay], "year", year)
		q.Ev("revenue = SUM({order_item.quantity} * {order_item.unit_price} * (1 - {order_item.discount})); delivered refers to {orders.status} = 'delivered'; paid by "+paymentText[pay]+" refers to {orders.payment_method} = ?; in "+year+" refers to strftime('%Y', {orders.order_date}) = ?", pay, year)
		q.SQL("SELECT SUM(T2.{order_item.quantity} * T2.{order_item.unit_price} * (1 - T2.{order_item.discount})) FROM {orders} AS T1 INNER JOIN {order_item} AS T2 ON T1.{orders.order_id} = T2.{order_item.order_id} WHERE T1.{orders.status} = 'delivered' AND T1.{orders.payment_method} = ? AND strftime('%Y', T1.{orders.order_date}) = ?", pay, year)
	}},

	{"retail/pct_status_by_tier", Challenging, func(q *candidate) {
		tier := q.Choose(tiers...)
		status := q.Choose("cancelled", "returned")
		q.Ask([]string{"What percentage of the orders placed by {tier}-tier customers were {status}?", "Among orders from {tier}-tier customers, what percent were {status}?", "Calculate the percentage of {status} orders among all orders of {tier}-tier customers."}, "tier", tier, "status", status)
		q.Ev(tier+"-tier refers to {customer.tier} = ?; percentage = DIVIDE(SUM({orders.status} = ?), COUNT({orders.order_id})) * 100", tier, status)
		q.SQL("SELECT CAST(SUM(CASE WHEN T2.{orders.status} = ? THEN 1 ELSE 0 END) AS REAL) * 100 / COUNT(T2.{orders.order_id}) FROM {customer} AS T1 INNER JOIN {orders} AS T2 ON T1.{customer.customer_id} = T2.{orders.customer_id} WHERE T1.{customer.tier} = ?", status, tier)
	}},
	{"retail/revenue_category_city", Challenging, func(q *candidate) {
		city := q.Distinct("customer.city")
		cat := q.Distinct("product.category")
		q.Ask([]string{"What is the total revenue from delivered orders of {cat} products placed by customers living in {city}?", "How much revenue did customers from {city} generate with {cat} products in delivered orders?", "Calculate the revenue of {cat} products in delivered orders from customers whose city is {city}."}, "cat", cat, "city", city)
		q.Ev("revenue = SUM({order_item.quantity} * {order_item.unit_price} * (1 - {order_item.discount})); delivered refers to {orders.status} = 'delivered'")
		q.SQL("SELECT SUM(T3.{order_item.quantity} * T3.{order_item.unit_price} * (1 - T3.{order_item.discount})) FROM {customer} AS T1 INNER JOIN {orders} AS T2 ON T1.{customer.customer_id} = T2.{orders.customer_id} INNER JOIN {order_item} AS T3 ON T2.{orders.order_id} = T3.{order_item.order_id} INNER JOIN {product} AS T4 ON T3.{order_item.product_id} = T4.{product.product_id} WHERE T1.{customer.city} = ? AND T4.{product.category} = ? AND T2.{orders.status} = 'delivered'", city, cat)
	}},
	{"retail/above_category_avg", Challenging, func(q *candidate) {
		cat := q.Distinct("product.category")
		if q.Coin() {
			q.Ask([]string{"List the names of {cat} products priced above the average unit price of all {cat} products.", "Which {cat} products cost more than the average {cat} product? Give their names.", "Name the products in the {cat} category whose unit price is higher than the category's average unit price."}, "cat", cat)
			q.SQL("SELECT {product.product_name} FROM {product} WHERE {product.category} = ? AND {product.unit_price} > (SELECT AVG({product.unit_price}) FROM {product} WHERE {product.category} = ?)", cat, cat)
		} else {
			q.Ask([]string{"How many {cat} products are priced above the average unit price of all products?", "Count the {cat} products that cost more than the average product across every category.", "What is the number of products in the {cat} category whose unit price exceeds the overall average unit price?"}, "cat", cat)
			q.SQL("SELECT COUNT(*) FROM {product} WHERE {product.category} = ? AND {product.unit_price} > (SELECT AVG({product.unit_price}) FROM {product})", cat)
		}
	}},
	{"retail/top_spender", Challenging, func(q *candidate) {
		year := q.Year("orders.order_date")
		city := q.Distinct("customer.city")
		q.Ask([]string{"Among customers from {city}, who spent the most on delivered orders in {year}? Give the first and last name.", "Which customer living in {city} spent the most on orders delivered in {year}? List the first and last name.", "Give the first and last name of the {city} customer with the highest spending on delivered orders in {year}."}, "city", city, "year", year)
		q.Ev("spending = SUM({order_item.quantity} * {order_item.unit_price} * (1 - {order_item.discount})); delivered refers to {orders.status} = 'delivered'; in "+year+" refers to strftime('%Y', {orders.order_date}) = ?", year)
		q.Top("T1.{customer.first_name}, T1.{customer.last_name}",
			"FROM {customer} AS T1 INNER JOIN {orders} AS T2 ON T1.{customer.customer_id} = T2.{orders.customer_id} INNER JOIN {order_item} AS T3 ON T2.{orders.order_id} = T3.{order_item.order_id} WHERE T1.{customer.city} = ? AND T2.{orders.status} = 'delivered' AND strftime('%Y', T2.{orders.order_date}) = ? GROUP BY T1.{customer.customer_id}",
			"SUM(T3.{order_item.quantity} * T3.{order_item.unit_price} * (1 - T3.{order_item.discount}))", true, city, year)
	}},
	{"retail/gold_share_of_brand_units", Challenging, func(q *candidate) {
		brand := q.Distinct("product.brand")
		tier := q.Choose(tiers...)
		q.Ask([]string{"What percentage of all units of {brand} products ordered were ordered by {tier}-tier customers?", "Of the total quantity of {brand} products ordered, what percent went to {tier}-tier customers?", "Calculate the share, as a percentage, of ordered {brand} units that were bought by customers in the {tier} tier."}, "brand", brand, "tier", tier)
		q.Ev(tier+"-tier refers to {customer.tier} = ?; percentage = DIVIDE(SUM({order_item.quantity} WHERE {customer.tier} = ?), SUM({order_item.quantity})) * 100", tier, tier)
		q.SQL("SELECT CAST(SUM(CASE WHEN T1.{customer.tier} = ? THEN T3.{order_item.quantity} ELSE 0 END) AS REAL) * 100 / SUM(T3.{order_item.quantity}) FROM {customer} AS T1 INNER JOIN {orders} AS T2 ON T1.{customer.customer_id} = T2.{orders.customer_id} INNER JOIN {order_item} AS T3 ON T2.{orders.order_id} = T3.{order_item.order_id} INNER JOIN {product} AS T4 ON T3.{order_item.product_id} = T4.{product.product_id} WHERE T4.{product.brand} = ?", tier, brand)
	}},
	{"retail/above_city_avg_orders", Challenging, func(q *candidate) {
		city := q.Pick("SELECT {customer.city} FROM {customer} GROUP BY {customer.city} HAVING COUNT(*) BETWEEN 8 AND 60 ORDER BY 1").S(0)
		q.Ask([]string{"List the first and last names of customers from {city} who placed more orders than the average number of orders per ordering customer in {city}.", "Which customers living in {city} have more orders than the average {city} customer who ordered? Give their first and last names.", "Give the first and last name of each {city} customer whose order count is above the average order count of {city} customers with at least one order."}, "city", city)
		q.Ev("average number of orders per ordering customer = DIVIDE(COUNT({orders.order_id}), COUNT(DISTINCT {orders.customer_id})) over customers whose {customer.city} = ?", city)
		q.SQL("SELECT T1.{customer.first_name}, T1.{customer.last_name} FROM {customer} AS T1 INNER JOIN {orders} AS T2 ON T1.{customer.customer_id} = T2.{orders.customer_id} WHERE T1.{customer.city} = ? GROUP BY T1.{customer.customer_id} HAVING COUNT(T2.{orders.order_id}) > (SELECT CAST(COUNT(T4.{orders.order_id}) AS REAL) / COUNT(DISTINCT T4.{orders.customer_id}) FROM {customer} AS T3 INNER JOIN {orders} AS T4 ON T3.{customer.customer_id} = T4.{orders.customer_id} WHERE T3.{customer.city} = ?)", city, city)
	}},
	{"retail/payment_ratio", Challenging, func(q *candidate) {
		tier := q.Choose(tiers...)
		p1 := q.Choose("credit card", "debit card", "paypal")
		p2 := q.Choose("gift card", "bank transfer")
		q.Ask([]string{"Among {tier}-tier customers, how many times more orders were paid by {p1} than by {p2}?", "For customers in the {tier} tier, what is the ratio of orders paid with {p1} to orders paid with {p2}?", "How many times as many {tier}-tier customer orders were paid by {p1} as by {p2}?"}, "tier", tier, "p1", paymentText[p1], "p2", paymentText[p2])
		q.Ev(tier+"-tier refers to {customer.tier} = ?; ratio = DIVIDE(SUM({orders.payment_method} = ?), SUM({orders.payment_method} = ?))", tier, p1, p2)
		q.SQL("SELECT CAST(SUM(CASE WHEN T2.{orders.payment_method} = ? THEN 1 ELSE 0 END) AS REAL) / SUM(CASE WHEN T2.{orders.payment_method} = ? THEN 1 ELSE 0 END) FROM {customer} AS T1 INNER JOIN {orders} AS T2 ON T1.{customer.customer_id} = T2.{orders.customer_id} WHERE T1.{customer.tier} = ?", p1, p2, tier)
	}},
}
