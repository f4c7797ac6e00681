package store

// MaxNumberQueryForTest reads the highest record number of a database (NextRecordNumber).
const MaxNumberQueryForTest = maxNumber
