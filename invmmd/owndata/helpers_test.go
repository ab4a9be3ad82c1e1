package owndata

import (
	"context"
	"errors"
)

// ctx is the context of the tests' calls that are not interrupted.
var ctx = context.Background()

// errorsAs is errors.As.
func errorsAs(err error, target any) bool { return errors.As(err, target) }
