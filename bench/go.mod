module github.com/limcheck/limcheck/bench

go 1.26.0

require github.com/limcheck/limcheck v0.0.0

require golang.org/x/time v0.16.0

replace github.com/limcheck/limcheck => ../
