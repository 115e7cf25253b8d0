// Package numbers keeps every digit of the numbers a store writes and reads.
// DynamoDB holds decimal numbers of up to 38 significant digits, from 1e-130 to
// below 1e126; Go's float64 and the SDK's encoder do not.
//
//   - Exact stands between a caller's values and the encoder: big.Int, big.Float and
//     big.Rat become exact decimal numbers, and values the encoder would lose (a
//     struct of unexported fields, say) are refused.
//   - Validate and ValidateAll refuse what DynamoDB would: NaN, infinities, numbers
//     out of its range or precision.
//   - Add computes DynamoDB's ADD exactly, for a patch whose sum an index must see.
//   - Decode and JSON turn stored numbers into json.Number, which keeps every digit.
//
// Errors are *schema.ValidationError values (ErrInvalid). The package performs no
// I/O and imports nothing of the store but package schema.
package numbers
