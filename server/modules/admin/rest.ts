/** Where the application's lists are served on REST. */
export const tags = ['admin'];

/** The admin lists always page (behaviour §16): how their `Link` header reads. */
export const ADMIN_NEXT_PAGE = 'When more items follow: `<path?search=…&limit=N&cursor=…>; rel="next"`';
