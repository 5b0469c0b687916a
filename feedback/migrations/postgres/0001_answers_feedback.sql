-- Every answer the server gave, and every human verdict on one.
-- Times are Unix microseconds (UTC); latency is in microseconds.
CREATE TABLE answers (
	id            BIGSERIAL PRIMARY KEY,
	created_us    BIGINT  NOT NULL,
	db_id         TEXT    NOT NULL,
	question      TEXT    NOT NULL,
	evidence      TEXT    NOT NULL DEFAULT '',
	model         TEXT    NOT NULL DEFAULT '',
	sql           TEXT    NOT NULL,
	outcome       TEXT    NOT NULL CHECK (outcome IN ('ok', 'error')),
	error_class   TEXT    NOT NULL DEFAULT '',
	error_message TEXT    NOT NULL DEFAULT '',
	row_count     BIGINT  NOT NULL DEFAULT 0,
	latency_us    BIGINT  NOT NULL DEFAULT 0
);
CREATE TABLE feedback (
	id                BIGSERIAL PRIMARY KEY,
	answer_id         BIGINT  NOT NULL REFERENCES answers (id),
	created_us        BIGINT  NOT NULL,
	verdict           TEXT    NOT NULL DEFAULT '' CHECK (verdict IN ('', 'up', 'down')),
	corrected_sql     TEXT    NOT NULL DEFAULT '',
	correction        TEXT    NOT NULL DEFAULT '' CHECK (correction IN ('', 'ok', 'error')),
	correction_error  TEXT    NOT NULL DEFAULT '',
	comment           TEXT    NOT NULL DEFAULT '',
	author            TEXT    NOT NULL DEFAULT ''
);
