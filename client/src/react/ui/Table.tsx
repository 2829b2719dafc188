import type { Ref, TableHTMLAttributes } from 'react';
import { classes } from './classes.ts';

/**
 * A table, named by `label`, in a frame that scrolls sideways on a narrow screen; `children` are its
 * rows. `columns` are its headers; `actions` adds a last column, for each row's buttons, whose
 * header only screen readers hear. Without `columns`, each row has its own header (`scope="row"`).
 */
export function Table({
  label,
  columns,
  actions = false,
  className,
  children,
  ...table
}: Omit<TableHTMLAttributes<HTMLTableElement>, 'aria-label'> & {
  label: string;
  columns?: readonly string[];
  actions?: boolean;
  ref?: Ref<HTMLTableElement>;
}) {
  return (
    <div className="osc-table-scroll">
      <table {...table} className={classes('osc-table', className)} aria-label={label}>
        {columns && (
          <thead>
            <tr>
              {columns.map((column) => (
                <th key={column} scope="col">
                  {column}
                </th>
              ))}
              {actions && (
                <th scope="col">
                  <span className="osc-visually-hidden">Actions</span>
                </th>
              )}
            </tr>
          </thead>
        )}
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
