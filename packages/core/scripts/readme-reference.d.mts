/** The README's generated reference section (see readme-reference.mjs). */
export declare const START: string
export declare const END: string
export declare const reference: () => string
export declare const withReference: (readme: string, section: string) => string
