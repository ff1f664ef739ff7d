package conformance

// Cases returns every conformance case, in a fixed order.
func Cases() []Case {
	var all []Case
	for _, group := range [][]Case{
		expressionCases(),
		queryCases(),
		scanCases(),
		gsiCases(),
		putCases(),
		getCases(),
		deleteCases(),
		updateCases(),
		batchCases(),
		txCases(),
		tableCases(),
		typeCases(),
		limitCases(),
		capacityCases(),
		missingTableCases(),
		keyPathCases(),
		indexKeyPathCases(),
		newItemKeyCases(),
		updatedPathCases(),
		limitBoundCases(),
		tagCases(),
		lsiCases(),
		legacyCases(),
		updateTableCases(),
		partiqlCases(),
		partiqlMoreCases(),
		settledCases(),
		validationCases(),
		requestLimitCases(),
		keyConditionCases(),
		pathOrderCases(),
	} {
		all = append(all, group...)
	}
	return all
}
