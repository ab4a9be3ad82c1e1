package mimic

// HumanBytes gives the external tests (package mimic_test) the report's byte formatting.
var HumanBytes = humanBytes
