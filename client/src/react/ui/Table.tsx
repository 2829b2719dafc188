import type { Ref, TableHTMLAttributes } from 'react';
import { classes } from './classes.ts';

/**
 * A table, named by `label`, in a frame that scrolls sideways on a narrow screen; `children` are its
 * rows. `columns` are its headers; `actions` adds a last column, for each row's buttons, whose
 * header only screen readers hear; `select` adds a first one, whose header checks every row's box.
 * Without `columns`, each row has its own header (`scope="row"`).
 */
export function Table({
  label,
  columns,
  actions = false,
  select,
  className,
  children,
  ...table
}: Omit<TableHTMLAttributes<HTMLTableElement>, 'aria-label'> & {
  label: string;
  columns?: readonly string[];
  actions?: boolean;
  select?: { label: string; checked: boolean; onChange: (checked: boolean) => void } | undefined;
  ref?: Ref<HTMLTableElement>;
}) {
  return (
    <div className="osc-table-scroll">
      <table {...table} className={classes('osc-table', className)} aria-label={label}>
        {columns && (
          <thead>
            <tr>
              {select && (
                <th scope="col" className="osc-table__select">
                  <input
                    type="checkbox"
                    aria-label={select.label}
                    checked={select.checked}
                    onChange={(event) => select.onChange(event.target.checked)}
                  />
                </th>
              )}
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
