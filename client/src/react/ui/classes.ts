/** The class names given, less the false and undefined ones: `classes('osc-field', invalid && 'osc-field--invalid')`. */
export const classes = (...names: Array<string | false | undefined>) => names.filter(Boolean).join(' ');
