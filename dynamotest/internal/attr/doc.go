// Package attr holds the fake's rules for DynamoDB attribute values: how
// they compare (S and B by bytes, N as decimal numbers), when two values are
// equal (sets regardless of order, "1.0" equal to "1"), what DynamoDB
// rejects (bad numbers, empty or duplicated sets, nesting deeper than 32),
// number arithmetic with DynamoDB's 38-digit precision, deep copies, and
// key identities.
//
// Numbers are decimals, not floats: DynamoDB stores up to 38 significant
// digits with magnitudes from 1E-130 to just under 1E+126, and orders
// them numerically, so a sort key of 10 follows 9. The package parses
// them into a digits-and-exponent form that compares without allocating.
package attr
