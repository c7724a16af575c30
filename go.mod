module nexttoken

go 1.26.8

require (
	github.com/maxence-charriere/go-app/v10 v10.1.11
	gonum.org/v1/gonum v0.17.0
)

require (
	github.com/google/uuid v1.6.0 // indirect
	github.com/hack-pad/safejs v0.1.0 // indirect
)
