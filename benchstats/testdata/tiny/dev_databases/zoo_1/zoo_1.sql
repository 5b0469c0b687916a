CREATE TABLE animal (animal_id INTEGER PRIMARY KEY, species TEXT, age INTEGER);
INSERT INTO animal VALUES (1, 'lion', 5), (2, 'tiger', NULL), (3, 'lion', 7), (4, 'bear', NULL);
