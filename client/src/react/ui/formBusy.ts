import { createContext } from 'react';

/** Whether the enclosing Form's work is under way, for its submit button (FormActions) to say so. */
export const FormBusy = createContext(false);
