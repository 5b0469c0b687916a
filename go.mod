module github.com/sqlrl/sqlrl

go 1.26.8
