CREATE TABLE customer (customer_id INTEGER PRIMARY KEY, name TEXT, city TEXT);
CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customer(customer_id), amount REAL);
INSERT INTO customer VALUES (1, 'Ann', 'Paris'), (2, 'Bob', 'Rome'), (3, 'Cy', 'Paris');
INSERT INTO orders VALUES (10, 1, 5.0), (11, 1, 7.0), (12, 2, 3.0);
