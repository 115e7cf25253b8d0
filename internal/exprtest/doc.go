// Package exprtest renders DynamoDB expressions for tests to compare: each
// placeholder of a name or a value replaced by what it stands for, without
// spaces. Only tests import it, and it imports no package of this module
// (internal/layers_test.go holds the rule).
package exprtest
