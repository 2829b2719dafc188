/** Where the application's lists are served on REST. */
export const tags = ['admin'];
