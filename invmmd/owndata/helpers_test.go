package owndata

import "context"

// ctx is the context of the tests' calls that are not interrupted.
var ctx = context.Background()
