-- History pages newest first, per database, and an answer's feedback.
CREATE INDEX answers_created ON answers (created_us);
CREATE INDEX answers_db ON answers (db_id, id);
CREATE INDEX feedback_answer ON feedback (answer_id, id);
