package changes

import "github.com/rynodb/rynodb/ryno"

// As decodes the entity of an entity change into T values, as ryno.GetAs does: the
// entity before the change and after it, nil where there is none. When T embeds a
// ryno.Record, it receives the key, timestamps and version.
func As[T any](c Change) (old, cur *T, err error) {
	if old, err = decode[T](c.Old); err != nil {
		return nil, nil, err
	}
	if cur, err = decode[T](c.New); err != nil {
		return nil, nil, err
	}
	return old, cur, nil
}

func decode[T any](e *ryno.Entity) (*T, error) {
	if e == nil {
		return nil, nil
	}
	v := new(T)
	if err := e.Decode(v); err != nil {
		return nil, err
	}
	return v, nil
}
