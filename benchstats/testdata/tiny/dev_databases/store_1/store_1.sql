CREATE TABLE client (client_id INTEGER PRIMARY KEY, full_name TEXT, town TEXT);
CREATE TABLE purchase (purchase_id INTEGER PRIMARY KEY, client_id INTEGER REFERENCES client(client_id), total REAL);
INSERT INTO client VALUES (1, 'Ann', 'Paris'), (2, 'Bob', 'Rome'), (3, 'Cy', 'Paris');
INSERT INTO purchase VALUES (10, 1, 5.0), (11, 1, 7.0), (12, 2, 3.0);
