/** The caller's own profile (behaviour §4.1): `useProfile` reads it, `ProfileForm` creates or changes it. */
export { ProfileForm, type ProfileFormProps } from './ProfileForm.tsx';
export { useProfile } from './useProfile.ts';
