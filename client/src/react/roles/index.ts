/** An organization's roles (behaviour §11): `RoleEditor`, the page of them. */
export { RoleEditor, type RoleEditorProps } from './RoleEditor.tsx';
